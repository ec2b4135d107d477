/**
 * The argument map in its own panel: the SVG of GET /mechnb/argmap at a readable size, zoomable,
 * refreshed on save; a click on a box selects its cell, hovering shows its findings as plain text.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';

import { mechnbIcon } from './sidebar';

/** The smallest scale Fit chooses: the map's 10 px labels stay at 9 px or more. */
export const READABLE_SCALE = 0.9;

export class ArgumentMapPanel extends Widget {
  constructor(
    panel: NotebookPanel,
    onSelect: (panel: NotebookPanel, cellId: string | null, index: number | null) => void
  ) {
    super();
    this.notebook = panel;
    this.id = `jp-mechnb-argmap-${panel.id}`;
    this.addClass('jp-mechnb-argmap-panel');
    this.title.icon = mechnbIcon;
    this.title.closable = true;
    const bar = document.createElement('div');
    bar.className = 'jp-mechnb-preview-toolbar';
    this._status = document.createElement('div');
    this._status.className = 'jp-mechnb-preview-status';
    bar.append(
      this._status,
      this._button('−', 'Zoom out', () => this.zoom(1 / 1.2)),
      this._button('+', 'Zoom in', () => this.zoom(1.2)),
      this._button('Fit', 'Fit the width of the panel', () => this.fit())
    );
    this._view = document.createElement('div');
    this._view.className = 'jp-mechnb-argmap-view';
    this._view.addEventListener('click', event => {
      const box = (event.target as Element).closest?.('[data-mechnb-cell-index]');
      if (box) {
        const index = Number(box.getAttribute('data-mechnb-cell-index'));
        onSelect(this.notebook, box.getAttribute('data-mechnb-cell-id'), index);
      }
    });
    this.node.append(bar, this._view);
    this._setTitle();
    panel.context.saveState.connect((_, state) => {
      if (state === 'completed') {
        void this.refresh();
      }
    }, this);
    panel.context.pathChanged.connect(this._setTitle, this);
    panel.disposed.connect(() => this.dispose());
  }

  readonly notebook: NotebookPanel;

  /** Draw the map of the saved notebook again. */
  async refresh(): Promise<void> {
    const settings = ServerConnection.makeSettings();
    const url = URLExt.join(
      settings.baseUrl,
      'mechnb',
      `argmap?path=${encodeURIComponent(this.notebook.context.path)}`
    );
    const response = await ServerConnection.makeRequest(url, {}, settings);
    const text = await response.text();
    if (!response.ok) {
      this._status.textContent = `Cannot draw the map (${response.status})`;
      return;
    }
    // parsed as SVG, never as HTML; the server escapes every text it puts in
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.nodeName !== 'svg') {
      this._status.textContent = 'The map could not be read';
      return;
    }
    this._width = Number(svg.getAttribute('width')) || 800;
    this._height = Number(svg.getAttribute('height')) || 400;
    const open = svg.querySelectorAll('.node.open').length;
    this._view.replaceChildren(document.importNode(svg, true));
    this._apply();
    this._status.textContent = open
      ? `${open} open end${open === 1 ? '' : 's'} (red, dashed): hover for the finding`
      : 'The argument closes';
  }

  zoom(factor: number): void {
    this._scale = Math.min(4, Math.max(0.3, this._scale * factor));
    this._apply();
  }

  /** Fit the width of the panel, but never below a readable size (its smallest text at
   * about 9 px): a map wider than that scrolls sideways instead of shrinking to specks. */
  fit(): void {
    const room = this._view.clientWidth - 16;
    if (room > 0) {
      this._scale = Math.min(1.5, Math.max(READABLE_SCALE, room / this._width));
      this._apply();
    }
  }

  get scale(): number {
    return this._scale;
  }

  private _apply(): void {
    const svg = this._view.querySelector('svg');
    if (svg) {
      svg.setAttribute('width', String(Math.round(this._width * this._scale)));
      svg.setAttribute('height', String(Math.round(this._height * this._scale)));
    }
  }

  private _setTitle(): void {
    const name = this.notebook.context.path.split('/').pop() ?? '';
    this.title.label = `Argument map: ${name}`;
    this.title.caption = `mechnb: the argument of ${this.notebook.context.path}`;
  }

  private _button(label: string, title: string, onClick: () => void): HTMLButtonElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-mechnb-preview-button';
    button.textContent = label;
    button.title = title;
    button.addEventListener('click', onClick);
    return button;
  }

  private _status: HTMLElement;
  private _view: HTMLElement;
  private _scale = 1;
  private _width = 800;
  private _height = 400;
}
