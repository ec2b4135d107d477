/**
 * The paper's outline in the side bar: its sections (markdown headings) and, under each, its
 * labelled statements and evidence (theorems, definitions, assumptions, claims, experiments,
 * figures … with their label and title), read from the open notebook as it is edited — no
 * kernel, no save needed. A click selects the cell. The word count of the saved notebook
 * (`GET /mechnb/wordcount`: what the PDF prints, as a journal counts it) heads it, and each
 * section shows its own; it is refreshed on every save.
 */
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { requestAPI } from './api';
import { mechnbIcon } from './sidebar';

/** One part of `GET /mechnb/wordcount` (mechnb.wordcount.PartCount). */
interface IPartCount {
  title: string;
  kind: string;
  cell: number | null;
  cell_id: string | null;
  words: number;
  cjk: number;
}

/** `GET /mechnb/wordcount` (mechnb.wordcount.WordCount.to_json). */
export interface IWordCount {
  lang: string;
  total: { words: number; cjk: number };
  main: { words: number; cjk: number };
  abstract: { words: number; cjk: number };
  parts: IPartCount[];
}

/** "1,234 words" or "3,456 字 + 120 words" as a journal would count the part. */
export function countText(count: { words: number; cjk: number }, zh: boolean): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (zh || count.cjk > count.words) {
    return count.words ? `${n(count.cjk)} 字 + ${n(count.words)} words` : `${n(count.cjk)} 字`;
  }
  return `${n(count.words)} word${count.words === 1 ? '' : 's'}`;
}

export interface IOutlineEntry {
  /** 0-based cell index. */
  cell: number;
  cellId: string;
  /** 1–6 for a heading, 0 for a statement. */
  level: number;
  text: string;
  /** A statement's role and label ("theorem", "thm:main"). */
  role?: string;
  label?: string;
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/** The outline of `panel`'s notebook: headings and labelled role cells, in order. */
export function outline(panel: NotebookPanel): IOutlineEntry[] {
  const out: IOutlineEntry[] = [];
  const cells = panel.content.model?.cells;
  if (!cells) {
    return out;
  }
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    const meta = (cell.getMetadata('mechnb') ?? {}) as Record<string, unknown>;
    const role = typeof meta.role === 'string' ? meta.role : '';
    if (role === 'note') {
      continue; // never exported
    }
    if (cell.type === 'markdown') {
      let fenced = false;
      for (const line of cell.sharedModel.getSource().split('\n')) {
        if (/^\s*(```|~~~)/.test(line)) {
          fenced = !fenced;
        }
        const m = fenced ? null : HEADING.exec(line);
        if (m) {
          out.push({ cell: i, cellId: cell.id, level: m[1].length, text: m[2] });
        }
      }
    }
    if (role && typeof meta.label === 'string' && meta.label) {
      const title = typeof meta.title === 'string' ? meta.title : '';
      out.push({ cell: i, cellId: cell.id, level: 0, text: title, role, label: meta.label });
    }
  }
  return out;
}

export class OutlinePanel extends Widget {
  constructor(
    tracker: INotebookTracker,
    onSelect: (panel: NotebookPanel, cellId: string, index: number) => void
  ) {
    super();
    this.id = 'jp-mechnb-outline';
    this.addClass('jp-mechnb-outline');
    this.title.icon = mechnbIcon;
    this.title.caption = 'mechnb: the outline of the paper (sections and statements)';
    this.title.label = 'Outline';
    this.title.closable = true;
    this._onSelect = onSelect;
    this._tracker = tracker;
    tracker.currentChanged.connect(this._follow, this);
    this._follow();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._tracker.currentChanged.disconnect(this._follow, this);
    this._unwatch();
    window.clearTimeout(this._timer);
    super.dispose();
  }

  /** Draw the outline of the current notebook now. */
  render(): void {
    const panel = this._panel;
    if (!panel || panel.isDisposed) {
      this._note('Open a notebook to see its outline.');
      return;
    }
    const entries = outline(panel);
    const head = document.createElement('div');
    head.className = 'jp-mechnb-outline-header';
    head.textContent = panel.context.path.split('/').pop() ?? '';
    const count = this._counts.get(panel.context.path) ?? null;
    if (count) {
      const zh = count.lang === 'zh';
      const line = document.createElement('div');
      line.className = 'jp-mechnb-outline-count';
      line.textContent =
        `Main text ${countText(count.main, zh)} · abstract ${countText(count.abstract, zh)}` +
        ` · in all ${countText(count.total, zh)} (as saved; no references, no author block)`;
      head.appendChild(line);
    }
    if (!entries.length) {
      this.node.replaceChildren(head, this._noteNode('No headings or labelled statements yet.'));
      return;
    }
    const list = document.createElement('ul');
    list.className = 'jp-mechnb-outline-list';
    let depth = 1; // the level of the last heading: statements sit one step below it
    for (const entry of entries) {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.cellIndex = String(entry.cell);
      if (entry.level > 0) {
        depth = entry.level;
        item.className = `jp-mechnb-outline-heading jp-mechnb-outline-h${entry.level}`;
        button.textContent = entry.text;
        const part = count?.parts.find(
          p => p.cell_id === entry.cellId && p.kind !== 'title' && p.kind !== 'abstract'
            && p.title.replace(/\s+/g, ' ').trim() === entry.text.replace(/\s+/g, ' ').trim());
        if (part && count) {
          const words = document.createElement('span');
          words.className = 'jp-mechnb-outline-words';
          words.textContent = countText(part, count.lang === 'zh');
          button.appendChild(words);
        }
        item.style.paddingLeft = `${(entry.level - 1) * 12}px`;
      } else {
        item.className = 'jp-mechnb-outline-statement';
        item.dataset.role = entry.role;
        const role = document.createElement('span');
        role.className = 'jp-mechnb-outline-role';
        role.textContent = entry.role ?? '';
        const label = document.createElement('code');
        label.textContent = entry.label ?? '';
        button.append(role, ' ', label, entry.text ? ` ${entry.text}` : '');
        item.style.paddingLeft = `${depth * 12}px`;
      }
      button.title = `cell ${entry.cell + 1}`;
      button.addEventListener('click', () => {
        if (this._panel && !this._panel.isDisposed) {
          this._onSelect(this._panel, entry.cellId, entry.cell);
        }
      });
      item.appendChild(button);
      list.appendChild(item);
    }
    this.node.replaceChildren(head, list);
  }

  private _follow(): void {
    this._unwatch();
    this._panel = this._tracker.currentWidget;
    const model = this._panel?.content.model;
    if (model) {
      this._model = model;
      model.contentChanged.connect(this._schedule, this);
      model.cells.changed.connect(this._schedule, this);
    }
    if (this._panel) {
      this._saved = this._panel.context;
      this._saved.saveState.connect(this._onSave, this);
      void this._count();
    }
    this.render();
  }

  private _onSave(_: unknown, state: string): void {
    if (state === 'completed') {
      void this._count();
    }
  }

  /** The word count of the saved notebook (the server counts what the PDF prints). */
  private async _count(): Promise<void> {
    const panel = this._panel;
    if (!panel || panel.isDisposed) {
      return;
    }
    const path = panel.context.path;
    try {
      const count = await requestAPI<IWordCount>(`wordcount?path=${encodeURIComponent(path)}`);
      this._counts.set(path, count);
    } catch {
      this._counts.delete(path); // not saved yet, or not readable: the outline alone
    }
    if (this._panel === panel) {
      this.render();
    }
  }

  private _unwatch(): void {
    this._saved?.saveState.disconnect(this._onSave, this);
    this._saved = null;
    this._model?.contentChanged.disconnect(this._schedule, this);
    this._model?.cells.changed.disconnect(this._schedule, this);
    this._model = null;
  }

  /** Edits come keystroke by keystroke: redraw once they pause. */
  private _schedule(): void {
    window.clearTimeout(this._timer);
    this._timer = window.setTimeout(() => this.render(), 250);
  }

  private _note(text: string): void {
    this.node.replaceChildren(this._noteNode(text));
  }

  private _noteNode(text: string): HTMLElement {
    const note = document.createElement('div');
    note.className = 'jp-mechnb-outline-note';
    note.textContent = text;
    return note;
  }

  private _tracker: INotebookTracker;
  private _onSelect: (panel: NotebookPanel, cellId: string, index: number) => void;
  private _panel: NotebookPanel | null = null;
  private _model: NotebookPanel['content']['model'] = null;
  private _timer = 0;
  private _saved: NotebookPanel['context'] | null = null;
  private _counts = new Map<string, IWordCount>();
}
