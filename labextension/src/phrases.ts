import { INotebookTracker } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { requestAPI } from './api';
import { insertText } from './cells';
import { mechnbIcon } from './sidebar';

/** Wait this long after the last keystroke before asking the server. */
const DEBOUNCE_MS = 200;
/** At most this many phrases are listed for a query. */
const LIMIT = 60;

/** One phrase as returned by GET /mechnb/phrases (Phrase.to_record()). */
export interface IPhrase {
  id: string;
  function: string;
  en: string;
  zh: string;
  note: { en: string; zh: string };
}

type Lang = '' | 'en' | 'zh';

/**
 * The phrase side bar in TypeScript: a search over the server's phrase library
 * (GET /mechnb/phrases), so it needs no kernel and works alike in JupyterLab and Notebook 7.
 * "Insert" puts a phrase into the active cell of the current notebook (at the cursor when the
 * cell is being edited, else as a new sentence), its first [slot] selected. Text is set with
 * textContent, never parsed as HTML. `%mech phrases` keeps the kernel's ipywidgets panel.
 */
export class PhrasesPanel extends Widget {
  constructor(tracker: INotebookTracker) {
    super();
    this._tracker = tracker;
    this.id = 'jp-mechnb-phrases';
    this.addClass('jp-mechnb-phrases');
    this.title.icon = mechnbIcon;
    this.title.caption = 'mechnb: academic phrases by function (English and Chinese)';
    this.title.label = 'Phrases';
    this.title.closable = true;

    this._search.type = 'search';
    this._search.className = 'jp-mechnb-phrases-search';
    this._search.placeholder = 'Search phrases: "rules out", "closed form", 由此可见…';
    this._search.setAttribute('aria-label', 'Search phrases');
    this._search.addEventListener('input', () => this._schedule());

    this._lang.className = 'jp-mechnb-phrases-lang';
    this._lang.setAttribute('aria-label', 'Language');
    for (const [value, text] of [
      ['', 'EN + 中文'],
      ['en', 'English'],
      ['zh', '中文']
    ]) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = text;
      this._lang.append(option);
    }
    this._lang.addEventListener('change', () => this._schedule(0));

    const bar = document.createElement('div');
    bar.className = 'jp-mechnb-phrases-bar';
    bar.append(this._search, this._lang);
    this._status.className = 'jp-mechnb-phrases-status';
    this._list.className = 'jp-mechnb-phrases-list';
    this.node.append(bar, this._status, this._list);
    this._schedule(0);
  }

  /** Put the cursor in the search box. */
  focusSearch(): void {
    this._search.focus();
  }

  protected onAfterShow(): void {
    this._search.focus();
  }

  private _schedule(delay = DEBOUNCE_MS): void {
    if (this._timer !== null) {
      window.clearTimeout(this._timer);
    }
    this._timer = window.setTimeout(() => {
      this._timer = null;
      void this._update();
    }, delay);
  }

  private async _update(): Promise<void> {
    const seq = ++this._seq;
    const query = this._search.value;
    const lang = this._lang.value as Lang;
    const params = new URLSearchParams({ q: query, limit: String(LIMIT) });
    if (lang) {
      params.set('lang', lang);
    }
    try {
      const found = await requestAPI<IPhrase[]>(`phrases?${params.toString()}`);
      if (seq === this._seq) {
        this._render(found, query, lang);
      }
    } catch (error) {
      if (seq === this._seq) {
        this._list.replaceChildren();
        this._status.textContent =
          'The phrase search did not answer (is the Jupyter server running?): ' +
          (error as Error).message;
        this._status.dataset.state = 'error';
      }
    }
  }

  private _render(found: IPhrase[], query: string, lang: Lang): void {
    this._status.dataset.state = found.length ? 'ok' : 'empty';
    const more = found.length >= LIMIT ? ` (the first ${LIMIT})` : '';
    const count = `${found.length} phrase${found.length === 1 ? '' : 's'}${more}`;
    this._status.textContent = query.trim()
      ? `${count} for “${query.trim()}”`
      : `${count}; type to search by words or function`;
    const items = found.map(phrase => {
      const item = document.createElement('li');
      item.className = 'jp-mechnb-phrase';
      item.dataset.id = phrase.id;
      const fn = document.createElement('div');
      fn.className = 'jp-mechnb-phrase-function';
      fn.textContent = phrase.function;
      item.append(fn);
      for (const which of lang ? [lang] : (['en', 'zh'] as const)) {
        const row = document.createElement('div');
        row.className = 'jp-mechnb-phrase-row';
        const text = document.createElement('span');
        text.className = `jp-mechnb-phrase-text jp-mechnb-phrase-${which}`;
        text.textContent = phrase[which];
        const insert = document.createElement('button');
        insert.type = 'button';
        insert.className = 'jp-mechnb-phrase-insert';
        insert.textContent = 'Insert';
        insert.title = 'Insert into the active cell (its first [slot] selected)';
        insert.addEventListener('click', () => this._insert(phrase[which]));
        row.append(text, insert);
        item.append(row);
      }
      item.title = lang === 'zh' ? phrase.note.zh : phrase.note.en;
      return item;
    });
    this._list.replaceChildren(...items);
  }

  private _insert(text: string): void {
    const panel = this._tracker.currentWidget;
    if (!panel || !panel.content.activeCell) {
      this._status.textContent = 'Open a notebook and select the cell to insert the phrase into.';
      this._status.dataset.state = 'error';
      return;
    }
    if (!insertText(panel, text)) {
      this._status.textContent =
        'The active cell cannot take a phrase (select a markdown or code cell).';
      this._status.dataset.state = 'error';
    }
  }

  private _tracker: INotebookTracker;
  private _search = document.createElement('input');
  private _lang = document.createElement('select');
  private _status = document.createElement('div');
  private _list = document.createElement('ul');
  private _timer: number | null = null;
  private _seq = 0;
}
