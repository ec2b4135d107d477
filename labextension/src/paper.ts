/**
 * Starting and setting up a paper from the UI: `mechnb:new-paper` (Launcher card, File › New)
 * creates a notebook from a paper type's scaffold in the file browser's folder through
 * POST /mechnb/new-paper; `mechnb:paper-settings` edits `metadata.mechnb` (title, authors with
 * affiliations, bibliography, language, venue style, engine) of the active notebook.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Dialog, ICommandPalette, Notification, showDialog } from '@jupyterlab/apputils';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { ILauncher } from '@jupyterlab/launcher';
import { INotebookTracker } from '@jupyterlab/notebook';
import { notebookIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { requestAPI } from './api';
import { CommandIDs } from './commands';
import { PREAMBLE_WHERE, reviewAndApprove, trustState } from './trust';

/** Scaffolds: `type` or `type/variant` (a variant of the type's scaffold). */
const PAPER_TYPES: [string, string][] = [
  ['dynamics', 'Training dynamics — how a mechanism forms during training'],
  ['failure', 'Failure mode (numerical) — why low-precision training breaks'],
  ['failure/mechanistic', 'Failure mode (mechanistic) — a circuit component that misfires'],
  ['expressivity', 'Expressivity — what an architecture can and cannot compute']
];
const ENGINES = ['', 'pdflatex', 'xelatex', 'lualatex'];

/** A labelled form row. */
function row(form: HTMLElement, label: string, field: HTMLElement, hint = ''): void {
  const line = document.createElement('label');
  line.className = 'mechnb-form-row';
  const name = document.createElement('span');
  name.textContent = label;
  line.append(name, field);
  if (hint) {
    const small = document.createElement('small');
    small.textContent = hint;
    line.append(small);
  }
  form.append(line);
}

function select(name: string, options: [string, string][], value: string): HTMLSelectElement {
  const el = document.createElement('select');
  el.name = name;
  for (const [v, text] of options) {
    const option = document.createElement('option');
    option.value = v;
    option.textContent = text;
    el.append(option);
  }
  el.value = value;
  return el;
}

function input(name: string, value: string, placeholder = ''): HTMLInputElement {
  const el = document.createElement('input');
  el.name = name;
  el.value = value;
  el.placeholder = placeholder;
  return el;
}

/** The dialog body of `mechnb:new-paper`. */
class NewPaperForm extends Widget {
  constructor() {
    super();
    this.addClass('mechnb-form');
    row(this.node, 'Paper type', select('type', PAPER_TYPES, 'dynamics'));
    row(this.node, 'Language', select('lang', [['en', 'English'], ['zh', '中文']], 'en'));
    row(this.node, 'Title', input('title', '', 'optional; you can set it later'));
  }
  getValue(): { type: string; lang: string; title: string } {
    const get = (n: string) =>
      (this.node.querySelector(`[name="${n}"]`) as HTMLInputElement).value;
    return { type: get('type'), lang: get('lang'), title: get('title').trim() };
  }
}

/** An author as the notebook metadata holds it. */
interface IAuthor {
  name: string;
  affiliation?: string;
  email?: string;
}

function authorLines(authors: unknown): string {
  if (!Array.isArray(authors)) {
    return '';
  }
  return authors
    .map(a =>
      typeof a === 'string'
        ? a
        : [a?.name ?? '', a?.affiliation ?? '', a?.email ?? ''].filter(Boolean).join('; ')
    )
    .join('\n');
}

function parseAuthors(text: string): (string | IAuthor)[] {
  return text
    .split('\n')
    .map(line => line.split(';').map(x => x.trim()))
    .filter(parts => parts[0])
    .map(([name, affiliation, email]) => {
      if (!affiliation && !email) {
        return name;
      }
      const author: IAuthor = { name };
      if (affiliation) {
        author.affiliation = affiliation;
      }
      if (email) {
        author.email = email;
      }
      return author;
    });
}

/** The dialog body of `mechnb:paper-settings`. */
class SettingsForm extends Widget {
  constructor(meta: Record<string, any>, path = '') {
    super();
    this.addClass('mechnb-form');
    row(this.node, 'Title', input('title', meta.title ?? ''));
    const authors = document.createElement('textarea');
    authors.name = 'authors';
    authors.rows = 3;
    authors.value = authorLines(meta.authors);
    authors.placeholder = 'Ada Lovelace; University of Somewhere; ada@example.org';
    row(this.node, 'Authors', authors, 'one per line: name; affiliation; e-mail');
    row(this.node, 'Bibliography', input('bibliography', meta.bibliography ?? '', 'refs.bib'),
      'a .bib file next to the notebook');
    row(this.node, 'Language',
      select('lang', [['', 'by the text'], ['en', 'English'], ['zh', '中文']], meta.lang ?? ''));
    const style = typeof meta.style === 'string' ? meta.style : meta.style?.package ?? '';
    row(this.node, 'Venue style', input('style', style, 'e.g. neurips_2025'),
      'a style package TeX Live has or that lies next to the notebook');
    row(this.node, 'Engine', select('engine', ENGINES.map(e => [e, e || 'by the language']),
      meta.engine ?? ''));
    const preamble = document.createElement('textarea');
    preamble.name = 'preamble';
    preamble.rows = 5;
    preamble.spellcheck = false;
    preamble.className = 'mechnb-preamble';
    preamble.value = typeof meta.preamble === 'string' ? meta.preamble : '';
    preamble.placeholder = '\\usepackage{tikz}\n\\usetikzlibrary{arrows.meta}\n\\newcommand{\\R}{\\mathbb{R}}';
    row(this.node, 'Preamble', preamble,
      'packages and definitions for the whole paper; you review it before TeX compiles it');
    this._status = document.createElement('div');
    this._status.className = 'mechnb-preamble-status';
    this.node.append(this._status);
    this._saved = preamble.value;
    preamble.addEventListener('input', () => {
      if (preamble.value !== this._saved) {
        this._show('changed', 'Changed: judged again when the notebook is saved (the preview ' +
          'asks for review then).');
      } else {
        void this.refresh();
      }
    });
    if (path) {
      this._path = path;
      void this.refresh();
    }
  }

  /** The trust status of the preamble as saved (GET /mechnb/trust). */
  async refresh(): Promise<void> {
    if (!this._path || !this._saved.trim()) {
      this._show('', '');
      return;
    }
    this._show('checking', 'Preamble: checking…');
    let state;
    try {
      state = await trustState(this._path);
    } catch (error) {
      this._show('error', `Preamble: the trust status is not available (${error}).`);
      return;
    }
    const refused = state.refused.filter(r => r.where === PREAMBLE_WHERE);
    const pending = state.pending.filter(p => p.where === PREAMBLE_WHERE);
    if (refused.length) {
      this._show('refused', `Preamble refused: ${refused[0].reason} (${refused[0].snippet})` +
        (refused.length > 1 ? ` and ${refused.length - 1} more` : '') +
        '. Refused TeX cannot be approved; change it to build.');
    } else if (pending.length) {
      this._show('pending', 'Preamble (as saved): waits for your review.');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'jp-Button jp-mod-styled jp-mod-accept mechnb-preamble-review';
      button.textContent = 'Review and approve…';
      button.addEventListener('click', async () => {
        if (await reviewAndApprove(this._path, 'Approve')) {
          await this.refresh();
        }
      });
      this._status.append(' ', button);
    } else {
      this._show('approved', 'Preamble (as saved): approved — it compiles until it changes.');
    }
  }

  private _show(state: string, text: string): void {
    this._status.textContent = text;
    this._status.dataset.state = state;
  }

  private _status: HTMLElement;
  private _saved: string;
  private _path = '';
  getValue(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const el of Array.from(this.node.querySelectorAll('[name]'))) {
      const field = el as HTMLInputElement;
      out[field.name] = field.value;
    }
    return out;
  }
}

/** `metadata.mechnb` with the form's values: empty fields removed, the rest kept. */
export function mergedSettings(meta: Record<string, any>, form: Record<string, string>) {
  const next: Record<string, any> = { ...meta };
  const put = (key: string, value: unknown) => {
    if (value === '' || value === undefined || (Array.isArray(value) && !value.length)) {
      delete next[key];
    } else {
      next[key] = value;
    }
  };
  put('title', form.title.trim());
  put('authors', parseAuthors(form.authors));
  put('bibliography', form.bibliography.trim());
  put('lang', form.lang);
  put('engine', form.engine);
  // the preamble is TeX as written: kept verbatim (only an all-blank one is removed)
  put('preamble', (form.preamble ?? '').trim() ? form.preamble.replace(/\s+$/, '') : '');
  const style = form.style.trim();
  if (!style) {
    delete next.style;
  } else if (typeof meta.style === 'object' && meta.style) {
    next.style = { ...meta.style, package: style };
  } else {
    next.style = style;
  }
  return next;
}

export const paperPlugin: JupyterFrontEndPlugin<void> = {
  id: 'mechnb:paper',
  description: 'Start a mechanism paper and set it up from the UI.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILauncher, IDefaultFileBrowser, ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    launcher: ILauncher | null,
    browser: IDefaultFileBrowser | null,
    palette: ICommandPalette | null
  ) => {
    app.commands.addCommand(CommandIDs.newPaper, {
      label: args => (args.isLauncher ? 'Mechanism paper' : 'Mechanism Paper…'),
      caption: 'Create a mechanism paper notebook from a paper type’s scaffold',
      icon: args => (args.isLauncher ? notebookIcon : undefined),
      execute: async args => {
        let choice = {
          type: (args.type as string) ?? '',
          lang: (args.lang as string) ?? 'en',
          title: (args.title as string) ?? ''
        };
        if (!choice.type) {
          const result = await showDialog({
            title: 'New mechanism paper',
            body: new NewPaperForm(),
            buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Create' })]
          });
          if (!result.button.accept || !result.value) {
            return;
          }
          choice = result.value;
        }
        const dir = (args.cwd as string) ?? browser?.model.path ?? '';
        try {
          const reply = await requestAPI<{ path: string }>('new-paper', {
            method: 'POST',
            body: JSON.stringify({ dir, ...choice, title: choice.title || null })
          });
          await app.commands.execute('docmanager:open', { path: reply.path });
          return reply.path;
        } catch (error) {
          Notification.error(`mechnb: could not create the paper: ${error}`);
          return;
        }
      }
    });

    app.commands.addCommand(CommandIDs.paperSettings, {
      label: 'Paper Settings…',
      caption: 'Title, authors, bibliography, language, venue style, engine and preamble of this paper',
      isEnabled: () => tracker.currentWidget !== null,
      execute: async () => {
        const panel = tracker.currentWidget;
        if (!panel) {
          return;
        }
        const meta = (panel.model?.getMetadata('mechnb') as Record<string, any>) ?? {};
        const result = await showDialog({
          title: 'Paper settings',
          body: new SettingsForm(meta, panel.context.path),
          buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Apply' })]
        });
        if (!result.button.accept || !result.value || !panel.model) {
          return;
        }
        panel.model.setMetadata('mechnb', mergedSettings(meta, result.value));
        Notification.info('Paper settings applied; save the notebook to keep them.', {
          autoClose: 4000
        });
      }
    });

    launcher?.add({
      command: CommandIDs.newPaper,
      category: 'Notebook',
      rank: 50,
      args: { isLauncher: true }
    });
    palette?.addItem({ command: CommandIDs.newPaper, category: 'mechnb' });
    palette?.addItem({ command: CommandIDs.paperSettings, category: 'mechnb' });
  }
};
