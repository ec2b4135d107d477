import { NotebookPanel } from '@jupyterlab/notebook';
import { OutputArea, OutputAreaModel } from '@jupyterlab/outputarea';
import { LabIcon } from '@jupyterlab/ui-components';
import { Panel, Widget } from '@lumino/widgets';

import { IFinding } from './api';

/** The side-bar tab icon: a small "m" in a box. */
export const mechnbIcon = new LabIcon({
  name: 'mechnb:icon',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">' +
    '<rect class="jp-icon3" fill="#616161" x="1" y="1" width="14" height="14" rx="3"/>' +
    '<path fill="#fff" d="M4 12V5h1.6l.1.8Q6.4 4.9 7.5 4.9q1.2 0 1.6.9.7-.9 1.9-.9 2 0 2 2.3V12h-1.7V7.4q0-1-.9-1t-1 1V12H7.7V7.4q0-1-.9-1t-1 1V12z"/>' +
    '</svg>'
});

/** The rule of unfilled template slots, summarised in one line. */
const SLOT_CODE = 'MECH025';

/** "189 unfilled template slots in 30 cells — first: [phenomenon] (cell 2), …". */
export function slotSummary(slots: IFinding[]): string {
  const cells = new Set(slots.map(f => f.cell));
  const first = slots.slice(0, 3).map(f => {
    const slot = /\[[^\]]*\]/.exec(f.message);
    const where = f.cell === null ? 'notebook' : `cell ${f.cell + 1}`;
    return `${slot ? slot[0] : f.code} (${where})`;
  });
  // one MECH025 finding per cell, its message counting the cell's slots ("8 template slots")
  // (as mechnb.checker.report.slot_count reads it); an older message stands for one slot
  const n = slots.reduce((sum, f) => {
    const m = /(\d+) template slots?/.exec(f.message);
    return sum + (m ? Number(m[1]) : 1);
  }, 0);
  return (
    `${n} unfilled template slot${n === 1 ? '' : 's'} in ${cells.size} ` +
    `cell${cells.size === 1 ? '' : 's'} — first: ${first.join(', ')}` +
    (n > 3 ? ', …' : '')
  );
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'panel';
}

/**
 * A right-side-bar panel that shows one ipywidgets widget of a notebook's kernel: an OutputArea
 * that renders the widget-view mimebundle with the notebook's rendermime (which carries the widget
 * renderer bound to that notebook's widget manager), the way jupyterlab-sidecar does.
 */
export class WidgetHost extends Panel {
  constructor(title: string) {
    super();
    this.id = `jp-mechnb-sidebar-${slug(title)}`;
    this.addClass('jp-mechnb-sidebar');
    this.title.icon = mechnbIcon;
    this.title.caption = title;
    this.title.label = title;
    this.title.closable = true;
  }

  /** Show the widget `modelId` of `panel`'s kernel, replacing what was shown before. */
  showWidget(panel: NotebookPanel, modelId: string): void {
    this._output?.dispose();
    if (this._panel !== panel) {
      this._panel?.disposed.disconnect(this._onPanelDisposed, this);
      this._panel = panel;
      // the widget lives in that notebook's kernel: close the host with the notebook
      panel.disposed.connect(this._onPanelDisposed, this);
    }
    const model = new OutputAreaModel({ trusted: true });
    this._output = new OutputArea({ model, rendermime: panel.content.rendermime });
    this._output.addClass('jp-mechnb-sidebar-output');
    this.addWidget(this._output);
    model.add({
      output_type: 'display_data',
      data: {
        'application/vnd.jupyter.widget-view+json': {
          model_id: modelId,
          version_major: 2,
          version_minor: 1
        }
      },
      metadata: {}
    });
  }

  private _onPanelDisposed(): void {
    this.dispose();
  }

  private _output: OutputArea | null = null;
  private _panel: NotebookPanel | null = null;
}

/**
 * The findings of "Check argument" for one notebook: one row per finding; clicking a row selects
 * its cell. Text is set with textContent, never parsed as HTML.
 */
export class FindingsPanel extends Widget {
  constructor(onSelect: (panel: NotebookPanel, finding: IFinding) => void) {
    super();
    this._onSelect = onSelect;
    this.id = 'jp-mechnb-findings';
    this.addClass('jp-mechnb-findings');
    this.title.icon = mechnbIcon;
    this.title.caption = 'mechnb: check argument';
    this.title.label = 'Findings';
    this.title.closable = true;
  }

  /** Show a pending state while the check runs. */
  pending(path: string): void {
    this.node.replaceChildren(this._header(`Checking ${path}…`));
  }

  /** Show an error (the check could not run). */
  failed(path: string, message: string): void {
    const error = document.createElement('div');
    error.className = 'jp-mechnb-findings-error';
    error.textContent = message;
    this.node.replaceChildren(this._header(`Check of ${path} failed`), error);
  }

  /** List `findings` of `panel`'s notebook. */
  showFindings(panel: NotebookPanel, findings: IFinding[]): void {
    const path = panel.context.path;
    const counts = { error: 0, warning: 0, info: 0 };
    findings.forEach(f => (counts[f.severity] = (counts[f.severity] ?? 0) + 1));
    const summary = findings.length
      ? `${path}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} note(s)`
      : `${path}: no findings — the argument closes.`;
    const list = document.createElement('ul');
    list.className = 'jp-mechnb-findings-list';
    const rank = { error: 0, warning: 1, info: 2 };
    const ordered = [...findings].sort(
      (a, b) =>
        (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3) ||
        (a.cell ?? -1) - (b.cell ?? -1)
    );
    // Grouped by severity, errors first (DESIGN §2a); unfilled template slots (MECH025) are
    // summarised in one line: a fresh scaffold has ~190 of them, and they must not drown the
    // errors.
    const slots = ordered.filter(f => f.code === SLOT_CODE);
    let slotList: HTMLElement | null = null;
    let group: string | null = null;
    for (const finding of ordered) {
      if (finding.severity !== group) {
        group = finding.severity;
        list.appendChild(this._groupHead(finding.severity, counts[finding.severity]));
      }
      if (finding.code === SLOT_CODE) {
        if (slotList === null) {
          const item = document.createElement('li');
          item.dataset.severity = finding.severity;
          const details = document.createElement('details');
          details.className = 'jp-mechnb-slot-summary';
          const head = document.createElement('summary');
          head.textContent = slotSummary(slots);
          slotList = document.createElement('ul');
          details.append(head, slotList);
          item.appendChild(details);
          list.appendChild(item);
        }
        slotList.appendChild(this._item(panel, finding));
        continue;
      }
      list.appendChild(this._item(panel, finding));
    }
    this._list = list;
    this.node.replaceChildren(this._header(summary), this._filterBar(), list);
    this._applyFilter();
  }

  /** "Errors (6)": a group's heading; a click folds the group. */
  private _groupHead(severity: string, count: number): HTMLElement {
    const names: { [key: string]: string } = { error: 'Errors', warning: 'Warnings', info: 'Notes' };
    const head = document.createElement('li');
    head.className = 'jp-mechnb-findings-group';
    head.dataset.group = severity;
    head.dataset.name = names[severity] ?? severity;
    head.dataset.total = String(count);
    head.textContent = `${head.dataset.name} (${count})`;
    head.classList.toggle('jp-mod-folded', this._folded.has(severity));
    head.addEventListener('click', () => {
      if (this._folded.has(severity)) {
        this._folded.delete(severity);
      } else {
        this._folded.add(severity);
      }
      head.classList.toggle('jp-mod-folded', this._folded.has(severity));
      this._applyFilter();
    });
    return head;
  }

  /** A text filter (code, words of the message, "cell 4") kept across checks. */
  private _filterBar(): HTMLElement {
    const input = document.createElement('input');
    input.type = 'search';
    input.className = 'jp-mechnb-findings-filter';
    input.placeholder = 'Filter: MECH003, a word, cell 4';
    input.value = this._filter;
    input.addEventListener('input', () => {
      this._filter = input.value;
      this._applyFilter();
    });
    return input;
  }

  /** Show the findings the filter words match (folded groups hidden); each group's heading
   * counts what it shows ("Warnings (2 of 9)"), a group with no match loses its heading, and
   * an empty result says so instead of leaving the totals over an empty list. */
  private _applyFilter(): void {
    const words = this._filter.toLowerCase().split(/\s+/).filter(Boolean);
    const items = Array.from(this._list?.children ?? []) as HTMLElement[];
    const matched = new Map<string, number>();
    for (const item of items) {
      const severity = item.dataset.severity;
      if (!severity) {
        continue; // a group heading or the empty-result line
      }
      const text = (item.textContent ?? '').toLowerCase();
      const match = words.every(w => text.includes(w));
      // the slot summary row counts the findings it folds
      const weight = match ? Math.max(item.querySelectorAll('.jp-mechnb-finding').length, 1) : 0;
      matched.set(severity, (matched.get(severity) ?? 0) + weight);
      item.hidden = !match || this._folded.has(severity);
    }
    let any = false;
    for (const head of items.filter(i => i.dataset.group)) {
      const group = head.dataset.group ?? '';
      const total = Number(head.dataset.total ?? 0);
      const shown = matched.get(group) ?? 0;
      any = any || shown > 0;
      head.textContent = words.length
        ? `${head.dataset.name} (${shown} of ${total})`
        : `${head.dataset.name} (${total})`;
      head.hidden = words.length > 0 && shown === 0;
    }
    let empty = this._list?.querySelector(':scope > .jp-mechnb-findings-empty') as HTMLElement;
    if (words.length && !any && this._list) {
      if (!empty) {
        empty = document.createElement('li');
        empty.className = 'jp-mechnb-findings-empty';
        this._list.appendChild(empty);
      }
      empty.textContent = `No finding matches "${this._filter.trim()}".`;
    } else {
      empty?.remove();
    }
  }

  private _item(panel: NotebookPanel, finding: IFinding): HTMLElement {
    {
      const item = document.createElement('li');
      item.dataset.severity = finding.severity;
      const button = document.createElement('button');
      button.className = `jp-mechnb-finding jp-mechnb-severity-${finding.severity}`;
      button.type = 'button';
      if (finding.cell_id) {
        button.dataset.cellId = finding.cell_id;
      }
      if (finding.cell !== null) {
        button.dataset.cellIndex = String(finding.cell);
      }
      const where = document.createElement('span');
      where.className = 'jp-mechnb-finding-where';
      where.textContent =
        finding.cell === null
          ? 'notebook'
          : `cell ${finding.cell + 1}${finding.line !== null ? `:${finding.line}` : ''}`;
      const code = document.createElement('span');
      code.className = 'jp-mechnb-finding-code';
      code.textContent = `${finding.code} ${finding.severity}`;
      const message = document.createElement('span');
      message.className = 'jp-mechnb-finding-message';
      message.textContent = finding.message;
      button.append(where, code, message);
      button.addEventListener('click', () => {
        if (!panel.isDisposed) {
          this._onSelect(panel, finding);
        }
      });
      item.appendChild(button);
      return item;
    }
  }

  private _header(text: string): HTMLElement {
    const header = document.createElement('div');
    header.className = 'jp-mechnb-findings-header';
    header.textContent = text;
    return header;
  }

  private _onSelect: (panel: NotebookPanel, finding: IFinding) => void;
  private _list: HTMLElement | null = null;
  private _filter = '';
  private _folded = new Set<string>(['info']);
}
