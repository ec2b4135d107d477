import { Cell } from '@jupyterlab/cells';
import { INotebookTracker } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { IMovesResult, requestAPI } from './api';
import { cellRole, insertText } from './cells';
import { mechnbIcon } from './sidebar';

/** Wait this long after the last keystroke before asking the server again. */
const DEBOUNCE_MS = 300;

/**
 * The "Moves" side bar: the active abstract cell, sentence by sentence, each highlighted by the
 * moves it makes (POST /mechnb/moves), then the missing moves with phrases to start from.
 * Text is set with textContent, never parsed as HTML; unsaved edits are analysed as typed.
 */
export class MovesPanel extends Widget {
  constructor() {
    super();
    this.id = 'jp-mechnb-moves';
    this.addClass('jp-mechnb-moves');
    this.title.icon = mechnbIcon;
    this.title.caption = 'mechnb: the moves of the abstract';
    this.title.label = 'Moves';
    this.title.closable = true;
    this._message('Select the abstract cell of a mechnb paper.');
  }

  /** Follow the active cell of the notebooks in `tracker`. */
  follow(tracker: INotebookTracker): void {
    if (this._tracker) {
      return;
    }
    this._tracker = tracker;
    tracker.activeCellChanged.connect((_, cell) => this._watch(cell), this);
    this._watch(tracker.activeCell);
  }

  protected onCloseRequest(msg: any): void {
    super.onCloseRequest(msg);
    this._watch(null);
  }

  private _watch(cell: Cell | null): void {
    if (this._cell && !this._cell.isDisposed) {
      this._cell.model.contentChanged.disconnect(this._schedule, this);
      this._cell.model.metadataChanged.disconnect(this._schedule, this);
    }
    this._cell = cell;
    if (cell) {
      cell.model.contentChanged.connect(this._schedule, this);
      cell.model.metadataChanged.connect(this._schedule, this);
    }
    this._schedule();
  }

  private _schedule(): void {
    if (this._timer !== null) {
      window.clearTimeout(this._timer);
    }
    this._timer = window.setTimeout(() => {
      this._timer = null;
      void this._update();
    }, DEBOUNCE_MS);
  }

  private async _update(): Promise<void> {
    const cell = this._cell;
    const seq = ++this._seq;
    if (!cell || cell.isDisposed) {
      this._message('Select the abstract cell of a mechnb paper.');
      return;
    }
    if (cell.model.type !== 'markdown' || cellRole(cell.model)?.role !== 'abstract') {
      this._message(
        'The active cell is not the abstract (role "abstract"); select it to see its moves.'
      );
      return;
    }
    const text = cell.model.sharedModel.getSource();
    if (!text.trim()) {
      this._message('The abstract is empty.');
      return;
    }
    try {
      const result = await requestAPI<IMovesResult>('moves', {
        method: 'POST',
        body: JSON.stringify({ text })
      });
      if (seq === this._seq) {
        this._render(result);
      }
    } catch (error) {
      if (seq === this._seq) {
        this._message(`The moves could not be analysed: ${(error as Error).message}`);
      }
    }
  }

  private _message(text: string): void {
    const note = document.createElement('div');
    note.className = 'jp-mechnb-moves-note';
    note.textContent = text;
    this.node.replaceChildren(note);
  }

  private _tag(move: string): HTMLElement {
    const tag = document.createElement('span');
    tag.className = `jp-mechnb-move-tag jp-mechnb-move-${move}`;
    tag.textContent = move;
    return tag;
  }

  private _render(result: IMovesResult): void {
    const header = document.createElement('div');
    header.className = 'jp-mechnb-moves-header';
    header.textContent = result.missing.length
      ? `Abstract: ${result.sentences.length} sentence(s), ${result.missing.length} move(s) missing`
      : `Abstract: ${result.sentences.length} sentence(s), every move is made`;
    const list = document.createElement('ol');
    list.className = 'jp-mechnb-moves-sentences';
    for (const sentence of result.sentences) {
      const item = document.createElement('li');
      const first = sentence.moves[0] ?? 'none';
      item.className = `jp-mechnb-moves-sentence jp-mechnb-move-${first}`;
      item.dataset.moves = sentence.moves.join(' ');
      for (const move of sentence.moves) {
        item.appendChild(this._tag(move));
      }
      const text = document.createElement('span');
      text.className = 'jp-mechnb-moves-text';
      text.textContent = sentence.text;
      item.appendChild(text);
      if (sentence.cues.length) {
        item.title = sentence.cues.map(c => `${c.move}: ${c.cue || c.rule}`).join('; ');
      }
      list.appendChild(item);
    }
    const parts: HTMLElement[] = [header, list];
    if (result.missing.length) {
      const title = document.createElement('div');
      title.className = 'jp-mechnb-moves-header';
      title.textContent = 'Missing moves';
      const missing = document.createElement('ul');
      missing.className = 'jp-mechnb-moves-missing';
      for (const move of result.missing) {
        const item = document.createElement('li');
        item.dataset.move = move;
        item.appendChild(this._tag(move));
        const what = document.createElement('span');
        what.textContent = result.purpose[move] ?? move;
        if (result.templated.includes(move)) {
          what.textContent += ' (its sentence still has template slots)';
        }
        item.appendChild(what);
        const tips = document.createElement('ul');
        for (const phrase of result.suggestions[move] ?? []) {
          const tip = document.createElement('li');
          tip.className = 'jp-mechnb-moves-phrase';
          const text = document.createElement('span');
          text.textContent = phrase.text;
          const insert = document.createElement('button');
          insert.type = 'button';
          insert.className = 'jp-mechnb-moves-insert';
          insert.textContent = 'Insert';
          insert.title = 'Add this phrase to the abstract (its first [slot] selected)';
          insert.addEventListener('click', () => this._insert(phrase.text));
          tip.title = phrase.id;
          tip.append(text, ' ', insert);
          tips.appendChild(tip);
        }
        item.appendChild(tips);
        missing.appendChild(item);
      }
      parts.push(title, missing);
    }
    for (const late of result.out_of_order) {
      const note = document.createElement('div');
      note.className = 'jp-mechnb-moves-note';
      note.textContent = `The ${late.move} (sentence ${late.sentence + 1}) comes after the ${late.after}.`;
      parts.push(note);
    }
    this.node.replaceChildren(...parts);
  }

  /** Insert `text` into the abstract cell the panel shows (as the phrase panel does). */
  private _insert(text: string): void {
    const panel = this._tracker?.currentWidget;
    const cell = this._cell;
    if (!panel || !cell || cell.isDisposed) {
      return;
    }
    const index = panel.content.widgets.indexOf(cell);
    if (index < 0) {
      return;
    }
    if (panel.content.activeCellIndex !== index) {
      panel.content.activeCellIndex = index;
    }
    insertText(panel, text);
  }

  private _tracker: INotebookTracker | null = null;
  private _cell: Cell | null = null;
  private _timer: number | null = null;
  private _seq = 0;
}
