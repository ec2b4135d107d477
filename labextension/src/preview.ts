/**
 * The paper preview: the PDF of a notebook beside it, rebuilt by the server on every save,
 * rendered with pdf.js (page coordinates for SyncTeX), with clicks that jump to the cell.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { DocumentRegistry } from '@jupyterlab/docregistry';
import { INotebookModel } from '@jupyterlab/notebook';
import { ServerConnection } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
import * as pdfjs from 'pdfjs-dist';

import { IFinding, requestAPI } from './api';
import { saveOnce } from './save';
import { ITrustState, reviewAndApprove } from './trust';
import { mechnbIcon } from './sidebar';

// The worker is emitted by webpack as an asset of the extension and loaded from there: pdf.js
// parses in a Web Worker, never on the page's main thread.
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.js';

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

/** The reply of POST /mechnb/preview (mechnb.exporter.preview.PreviewResult.to_json()). */
export interface IPreviewResult {
  status: 'ok' | 'failed' | 'blocked' | 'cancelled';
  findings: IFinding[];
  passes: '' | 'one' | 'two' | 'three' | 'full';
  seconds: number;
  engine: string;
  message: string;
  version: string | null;
  built_at: number | null;
}

/** A box of a PDF page (GET /mechnb/synctex?cell=). */
export interface IPlace {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where a click in the PDF came from (GET /mechnb/synctex?page=&x=&y=). */
export interface ISource {
  cell: number;
  cell_id: string | null;
  line: number | null;
}

/** Milliseconds between a save and the build it starts (a burst of saves builds once; a save
 * after that supersedes the build: the server cancels it and its reply is dropped). */
export const DEBOUNCE_MS = 50;

/**
 * The preview of one notebook. Builds run in the server (POST /mechnb/preview); a newer save
 * supersedes a build in progress (the server cancels it, the reply of the older one is dropped).
 */
export class PreviewPanel extends Widget {
  constructor(
    context: DocumentRegistry.IContext<INotebookModel>,
    options: PreviewPanel.IOptions
  ) {
    super();
    this.context = context;
    this._options = options;
    this.id = `jp-mechnb-preview-${options.id}`;
    this.addClass('jp-mechnb-preview');
    this.title.icon = mechnbIcon;
    this.title.closable = true;
    this._setTitle();
    this._status = document.createElement('div');
    this._status.className = 'jp-mechnb-preview-status';
    const bar = document.createElement('div');
    bar.className = 'jp-mechnb-preview-toolbar';
    const rebuild = this._button('Rebuild', 'Build the preview now', () => void this.build());
    rebuild.classList.add('jp-mechnb-preview-rebuild');
    const zoomOut = this._button('−', 'Zoom out', () => this.zoom(1 / 1.15));
    const zoomIn = this._button('+', 'Zoom in', () => this.zoom(1.15));
    bar.append(this._status, zoomOut, zoomIn, rebuild);
    this._banner = document.createElement('div');
    this._banner.className = 'jp-mechnb-preview-banner';
    this._banner.hidden = true;
    this._pages = document.createElement('div');
    this._pages.className = 'jp-mechnb-preview-pages';
    // a double click jumps to the source (as in Overleaf and LaTeX Workshop): a single click
    // only focuses the PDF, so clicking or scrolling it to read never moves the notebook
    this._pages.addEventListener('dblclick', event => void this._onClick(event));
    this.node.append(bar, this._banner, this._pages);
    context.saveState.connect(this._onSave, this);
    context.pathChanged.connect(this._setTitle, this);
    context.disposed.connect(() => this.dispose());
  }

  /** The notebook's document context (shared with its panel in JupyterLab; in Notebook 7's
   * preview tab, a context of its own whose saves happen in the notebook's tab). */
  readonly context: DocumentRegistry.IContext<INotebookModel>;

  /** The result of the last build that finished (not superseded). */
  get lastResult(): IPreviewResult | null {
    return this._last;
  }

  /** Resolves once the build in progress (if any) and the rendering after it are done. */
  get idle(): Promise<void> {
    return this._idle;
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    window.clearTimeout(this._timer);
    this.context.saveState.disconnect(this._onSave, this);
    void this._doc?.destroy();
    this._worker?.destroy();
    super.dispose();
  }

  /** Build now (saving first if the notebook has unsaved edits). */
  async build(): Promise<IPreviewResult | null> {
    const context = this.context;
    if (context.model.dirty) {
      // one save at a time (a Rebuild during a save once raised the "changed on disk" dialog)
      this._setStatus('building', 'Saving…');
      try {
        await saveOnce(context);
      } catch (error) {
        this._setStatus('failed', `Preview not built: ${(error as Error)?.message ?? error}`);
        return null;
      }
      window.clearTimeout(this._timer); // this build is the one the save asked for
    }
    const ticket = ++this._ticket;
    let finish = () => {};
    this._idle = new Promise<void>(resolve => (finish = resolve));
    try {
      this._setStatus('building', 'Building…');
      let result: IPreviewResult;
      try {
        result = await requestAPI<IPreviewResult>('preview', {
          method: 'POST',
          body: JSON.stringify({ path: context.path })
        });
      } catch (error) {
        if (ticket === this._ticket) {
          this._setStatus('failed', `Preview failed: ${(error as Error).message}`);
        }
        return null;
      }
      if (ticket !== this._ticket || this.isDisposed || result.status === 'cancelled') {
        return null; // a newer save took over
      }
      this._last = result;
      this._options.onBuilt(result);
      if (result.status === 'ok') {
        await this._load(result);
        const how =
          result.passes === 'full'
            ? 'full build'
            : result.passes === 'one'
              ? 'one TeX pass'
              : `${result.passes} TeX passes`;
        this._setStatus('ok', `Updated ${clock(result.built_at)} (${how}, ${result.seconds.toFixed(1)} s)`);
        this._showProblems(result, false);
      } else if (result.status === 'failed') {
        if (!this._version && result.version) {
          await this._load(result);
        }
        this._setStatus(
          'failed',
          result.version
            ? `Build failed — showing the PDF of ${clock(result.built_at)}`
            : 'Build failed — no PDF yet'
        );
        this._showProblems(result, true);
      } else {
        this._setStatus('blocked', 'Not built: the TeX gate wants a review');
        this._showProblems(result, true);
      }
      this.node.classList.toggle('jp-mechnb-preview-stale', result.status !== 'ok');
      return result;
    } finally {
      if (ticket === this._ticket) {
        finish();
      }
    }
  }

  /** Scroll to `place` and flash a box around it. */
  reveal(place: IPlace): void {
    const page = this._pages.children[place.page - 1] as HTMLElement | undefined;
    if (!page) {
      return;
    }
    const s = this._scale;
    const mark = document.createElement('div');
    mark.className = 'jp-mechnb-preview-mark';
    mark.style.left = `${place.x * s}px`;
    mark.style.top = `${place.y * s}px`;
    mark.style.width = `${Math.max(place.width, 40) * s}px`;
    mark.style.height = `${Math.max(place.height, 10) * s}px`;
    page.querySelectorAll('.jp-mechnb-preview-mark').forEach(m => m.remove());
    page.appendChild(mark);
    this._pages.scrollTop = page.offsetTop + place.y * s - this._pages.clientHeight / 3;
    window.setTimeout(() => mark.remove(), 2500);
  }

  /** Change the zoom and render again (the first zoom leaves "fit the width"). */
  zoom(factor: number): void {
    this._fit = false;
    this._scale = Math.min(4, Math.max(0.4, this._scale * factor));
    if (this._doc) {
      void this._render(this._doc);
    }
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    if (this._fit && this._doc) {
      window.clearTimeout(this._resizeTimer);
      const doc = this._doc;
      this._resizeTimer = window.setTimeout(() => void this._render(doc), 200);
    }
  }

  private _onSave(_: unknown, state: string): void {
    if (state === 'completed') {
      this.scheduleBuild();
    }
  }

  /** Build after the debounce; a build still running is superseded (its reply is dropped). */
  scheduleBuild(): void {
    this._ticket++; // a build still running is superseded now
    window.clearTimeout(this._timer);
    this._timer = window.setTimeout(() => void this.build(), DEBOUNCE_MS);
  }

  private async _load(result: IPreviewResult): Promise<void> {
    if (!result.version || result.version === this._version) {
      return;
    }
    const settings = ServerConnection.makeSettings();
    const url = URLExt.join(
      settings.baseUrl,
      'mechnb',
      `preview?path=${encodeURIComponent(this.context.path)}`
    );
    const response = await ServerConnection.makeRequest(url, {}, settings);
    if (!response.ok) {
      this._setStatus('failed', `Cannot load the PDF (${response.status})`);
      return;
    }
    const data = new Uint8Array(await response.arrayBuffer());
    // one Web Worker for the panel's life: starting one per PDF cost ~0.5 s of every rebuild
    this._worker ??= new pdfjs.PDFWorker();
    const doc = await pdfjs.getDocument({ data, isEvalSupported: false, worker: this._worker })
      .promise;
    const old = this._doc;
    this._doc = doc;
    this._version = response.headers.get('X-Mechnb-Version') ?? result.version;
    this.node.dataset.version = this._version ?? '';
    await this._render(doc);
    void old?.destroy();
  }

  /**
   * Draw `doc` over the pages shown now, at the same scroll position: the page holders are
   * sized first (so the layout and the scroll position hold), then the pages in view are drawn
   * and swapped in one at a time, each canvas replacing the old one only once it is drawn (no
   * blank page, no flicker). Resolves when the pages in view are drawn; the others follow in
   * the background, nearest first. A newer rendering stops an older one.
   */
  private async _render(doc: pdfjs.PDFDocumentProxy): Promise<void> {
    const run = ++this._renderRun;
    const top = this._pages.scrollTop;
    const ratio = window.devicePixelRatio || 1;
    const pages = await Promise.all(
      Array.from({ length: doc.numPages }, (_, n) => doc.getPage(n + 1))
    );
    if (run !== this._renderRun || doc !== this._doc) {
      return;
    }
    if (this._fit && pages.length) {  // as wide as the panel (a paper's pages share a width)
      const room = this._pages.clientWidth - 28;
      if (room > 100) {  // never below a readable size: a narrow side panel scrolls instead
        this._scale = Math.min(4, Math.max(0.75, room / pages[0].getViewport({ scale: 1 }).width));
      }
    }
    const holders = Array.from(this._pages.children) as HTMLElement[];
    while (holders.length > pages.length) {
      holders.pop()?.remove();
    }
    const viewports = pages.map(page => page.getViewport({ scale: this._scale }));
    viewports.forEach((viewport, n) => {
      let holder = holders[n];
      if (!holder) {
        holder = document.createElement('div');
        holder.className = 'jp-mechnb-preview-page';
        holder.dataset.page = String(n + 1);
        this._pages.appendChild(holder);
        holders.push(holder);
      }
      holder.style.width = `${viewport.width}px`;
      holder.style.height = `${viewport.height}px`;
    });
    this._pages.scrollTop = top;
    this.node.dataset.pages = String(doc.numPages);
    const draw = async (n: number): Promise<boolean> => {
      const viewport = viewports[n];
      const canvas = document.createElement('canvas');
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${viewport.width}px`;
      canvas.style.height = `${viewport.height}px`;
      const context = canvas.getContext('2d');
      if (context) {
        await pages[n].render({
          canvasContext: context,
          viewport,
          transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : undefined
        }).promise;
      }
      if (run !== this._renderRun) {
        return false; // a newer rendering took over
      }
      const old = holders[n].querySelector('canvas');
      if (old) {
        old.replaceWith(canvas);
      } else {
        holders[n].prepend(canvas);
      }
      return true;
    };
    // the pages in view first (by their place in the panel), then the rest, nearest first
    const frame = this._pages.getBoundingClientRect();
    const distance = (n: number): number => {
      const box = holders[n].getBoundingClientRect();
      return box.bottom < frame.top
        ? frame.top - box.bottom
        : box.top > frame.bottom
          ? box.top - frame.bottom
          : 0;
    };
    const far = holders.map((_, n) => distance(n));
    const order = holders.map((_, n) => n).sort((a, b) => far[a] - far[b]);
    const inView = order.filter(n => far[n] === 0);
    for (const n of inView.length ? inView : order.slice(0, 1)) {
      if (!(await draw(n))) {
        return;
      }
    }
    void (async () => {
      for (const n of order) {
        if (!inView.includes(n) && !(await draw(n))) {
          return;
        }
      }
    })();
  }

  private async _onClick(event: MouseEvent): Promise<void> {
    const holder = (event.target as HTMLElement).closest?.(
      '.jp-mechnb-preview-page'
    ) as HTMLElement | null;
    if (!holder) {
      return;
    }
    const box = holder.getBoundingClientRect();
    const x = (event.clientX - box.left) / this._scale;
    const y = (event.clientY - box.top) / this._scale;
    const query =
      `synctex?path=${encodeURIComponent(this.context.path)}` +
      `&page=${holder.dataset.page}&x=${x.toFixed(1)}&y=${y.toFixed(1)}`;
    try {
      const source = await requestAPI<ISource>(query);
      this._options.onSource(source);
    } catch {
      // outside any cell (title, references): nothing to jump to
    }
  }

  private _showProblems(result: IPreviewResult, failed: boolean): void {
    const shown = result.findings.filter(f => f.severity === 'error' || failed);
    this._banner.replaceChildren();
    this._banner.hidden = shown.length === 0 && !failed;
    this._banner.classList.toggle('jp-mechnb-preview-banner-failed', failed);
    if (this._banner.hidden) {
      return;
    }
    const head = document.createElement('div');
    head.className = 'jp-mechnb-preview-banner-head';
    head.textContent = result.message || `${shown.length} problem(s) in the last build`;
    this._banner.appendChild(head);
    if (result.status === 'blocked') {
      // the action comes first, so it is visible however many problems follow
      void this._offerReview(head);
    }
    for (const finding of shown.slice(0, 8)) {
      const row = document.createElement('button');
      row.type = 'button';
      row.className = `jp-mechnb-finding jp-mechnb-severity-${finding.severity}`;
      const where = finding.cell === null ? 'notebook' : `cell ${finding.cell + 1}`;
      row.textContent = `${where}: ${finding.code} ${finding.message}`;
      row.addEventListener('click', () =>
        this._options.onSource({
          cell: finding.cell ?? 0,
          cell_id: finding.cell_id,
          line: finding.line
        })
      );
      this._banner.appendChild(row);
    }
  }

  /**
   * Under the banner's head: "Review and approve" when only approvable content blocks the
   * build; when the gate refuses something, say so and why, with no approve action.
   */
  private async _offerReview(head: HTMLElement): Promise<void> {
    let state: ITrustState;
    try {
      state = await requestAPI<ITrustState>(
        `trust?path=${encodeURIComponent(this.context.path)}`
      );
    } catch {
      return;
    }
    if (!head.isConnected) {
      return; // a newer build replaced the banner meanwhile
    }
    const line = document.createElement('div');
    line.className = 'jp-mechnb-preview-banner-action';
    if (state.refused.length) {
      line.classList.add('jp-mechnb-preview-refused');
      const first = state.refused[0];
      const where = first.cell === null ? first.where || 'the notebook' : `cell ${first.cell + 1}`;
      line.textContent =
        `Refused: ${where}: ${first.reason}` +
        (state.refused.length > 1 ? ` (and ${state.refused.length - 1} more)` : '') +
        '. Refused TeX cannot be approved; remove it to build.';
    } else if (state.pending.length) {
      const n = state.pending.length;
      const approve = this._button(
        `Review and approve (${n} item${n === 1 ? '' : 's'})`,
        'Read exactly what the TeX gate wants reviewed and approve it (mechnb trust)',
        () => void this._review()
      );
      approve.classList.add('jp-mechnb-preview-approve');
      line.appendChild(approve);
    } else {
      return;
    }
    head.after(line);
  }

  /** `mechnb trust` in a dialog (trust.ts): the items with their content; approved, rebuild. */
  private async _review(): Promise<void> {
    if (await reviewAndApprove(this.context.path)) {
      await this.build();
    }
  }

  private _setStatus(state: string, text: string): void {
    this._status.textContent = text;
    this.node.dataset.state = state;
  }

  private _setTitle(): void {
    const name = this.context.path.split('/').pop() ?? '';
    this.title.label = `Preview: ${name}`;
    this.title.caption = `mechnb: PDF of ${this.context.path}, rebuilt on save`;
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

  private _options: PreviewPanel.IOptions;
  private _status: HTMLElement;
  private _banner: HTMLElement;
  private _pages: HTMLElement;
  private _doc: pdfjs.PDFDocumentProxy | null = null;
  private _version: string | null = null;
  private _last: IPreviewResult | null = null;
  private _scale = 1.2;
  private _fit = true;
  private _resizeTimer = 0;
  private _ticket = 0;
  private _timer = 0;
  private _idle: Promise<void> = Promise.resolve();
  private _renderRun = 0;
  private _worker: pdfjs.PDFWorker | null = null;
}

export namespace PreviewPanel {
  export interface IOptions {
    /** Makes the widget's id (`jp-mechnb-preview-<id>`). */
    id: string;
    /** A click in the PDF (or on a problem of the banner) named this cell and line. */
    onSource: (source: ISource) => void;
    /** A build finished (its findings go to the cells and the Findings panel). */
    onBuilt: (result: IPreviewResult) => void;
  }
}

function clock(seconds: number | null): string {
  return seconds ? new Date(seconds * 1000).toLocaleTimeString() : '?';
}

/** Where a cell landed in the preview (null: not in it). */
export async function placeOf(
  path: string,
  cell: number,
  line: number | null
): Promise<IPlace | null> {
  const query =
    `synctex?path=${encodeURIComponent(path)}&cell=${cell}` +
    (line ? `&line=${line}` : '');
  try {
    return await requestAPI<IPlace>(query);
  } catch {
    return null;
  }
}
