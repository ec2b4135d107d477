/**
 * Writing aids in markdown cells, with no kernel: completion of `\cref{`, `\eqref{`, `\ref{`
 * (and friends) with the notebook's own labels, of `[@` and `\cite{` with the bibliography's keys
 * (each shown with its title), and the browser's spell checking of prose, off inside math and
 * code.
 *
 * Labels come from the notebook model itself (a cell's `metadata.mechnb.label`, and every
 * `\label{…}` written in a markdown cell); keys from the `.bib` file that
 * `metadata.mechnb.bibliography` names, read through the Contents API (relative to the
 * notebook's folder), so they are current as soon as the file is saved.
 */
import { PathExt } from '@jupyterlab/coreutils';
import { CodeEditor } from '@jupyterlab/codeeditor';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry
} from '@jupyterlab/codemirror';
import {
  Completer,
  CompleterModel,
  CompletionHandler,
  ICompletionContext,
  ICompletionProvider,
  ProviderReconciliator
} from '@jupyterlab/completer';
import { Widget } from '@lumino/widgets';
import { Contents } from '@jupyterlab/services';
import { ICellModel } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { RangeSetBuilder } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  ViewPlugin,
  ViewUpdate
} from '@codemirror/view';

/** The reference commands whose argument is a label (cleveref, amsmath, hyperref, varioref). */
const REF = String.raw`\\(?:[cC]ref|[cC]pageref|labelcref|namecref|[vV]ref|eqref|ref|pageref|autoref|nameref)\*?\{`;
/** The citation commands whose argument is a bibliography key (natbib, biblatex). */
const CITE = String.raw`\\(?:cite|citet|citep|citealp|citealt|citeauthor|citeyear|parencite|textcite|autocite)\*?(?:\[[^\]\n]*\]){0,2}\{`;

/** What the text before the cursor asks for, and the part of the key already typed. */
export function completionQuery(
  before: string
): { kind: 'label' | 'cite'; typed: string } | null {
  const ref = new RegExp(`${REF}(?:[^{},\\n]*,)*\\s*([^{},\\s]*)$`).exec(before);
  if (ref) {
    return { kind: 'label', typed: ref[1] };
  }
  const cite = new RegExp(`${CITE}(?:[^{},\\n]*,)*\\s*([^{},\\s]*)$`).exec(before);
  if (cite) {
    return { kind: 'cite', typed: cite[1] };
  }
  // pandoc's [@key] and [@a; @b] (Jupyter's markdown writes citations this way too)
  const at = /\[(?:[^\]\n]*;\s*)?-?@([\w:./+-]*)$/.exec(before);
  if (at) {
    return { kind: 'cite', typed: at[1] };
  }
  return null;
}

/** Whether a character just typed should open the completer by itself. */
export function opensCompletion(before: string): boolean {
  return (
    new RegExp(`(?:${REF}|${CITE})$`).test(before) ||
    /\[-?@$/.test(before) ||
    /\[[^\]\n]*;\s*-?@$/.test(before)
  );
}

interface ILabelEntry {
  key: string;
  /** What the label names: a role and a title, or "equation in cell 7". */
  what: string;
}

/** Every label of the notebook: cell labels first (in order), then `\label{…}` in markdown. */
export function notebookLabels(panel: NotebookPanel): ILabelEntry[] {
  const out: ILabelEntry[] = [];
  const seen = new Set<string>();
  const add = (key: string, what: string): void => {
    if (key && !seen.has(key)) {
      seen.add(key);
      out.push({ key, what });
    }
  };
  const cells = panel.content.model?.cells;
  if (!cells) {
    return out;
  }
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    const meta = (cell.getMetadata('mechnb') ?? {}) as Record<string, unknown>;
    if (typeof meta.label === 'string') {
      const role = typeof meta.role === 'string' ? meta.role : 'cell';
      const title = typeof meta.title === 'string' ? `: ${meta.title}` : '';
      add(meta.label, `${role}${title} (cell ${i + 1})`);
    }
    if (cell.type === 'markdown') {
      const source = cell.sharedModel.getSource();
      const labels = /\\label\{([^{}\s]+)\}/g;
      let m: RegExpExecArray | null;
      while ((m = labels.exec(source)) !== null) {
        add(m[1], `in cell ${i + 1}`);
      }
    }
  }
  return out;
}

interface IBibEntry {
  key: string;
  type: string;
  title: string;
}

/** The value of a `{…}` or `"…"` field starting at `at` (braces balanced), without them. */
function fieldValue(text: string, at: number): string {
  const open = text[at];
  if (open === '"') {
    const end = text.indexOf('"', at + 1);
    return end < 0 ? '' : text.slice(at + 1, end);
  }
  if (open !== '{') {
    return '';
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === '\\') {
      i++;
    } else if (text[i] === '{') {
      depth++;
    } else if (text[i] === '}' && --depth === 0) {
      return text.slice(at + 1, i);
    }
  }
  return '';
}

/** Keys, types and titles of a BibTeX file (comments, `@string` and `@preamble` skipped). */
export function parseBib(text: string): IBibEntry[] {
  const out: IBibEntry[] = [];
  const entry = /@([A-Za-z]+)\s*[{(]\s*([^,\s{}()]+)\s*,/g;
  let m: RegExpExecArray | null;
  while ((m = entry.exec(text)) !== null) {
    const type = m[1].toLowerCase();
    if (type === 'string' || type === 'preamble' || type === 'comment') {
      continue;
    }
    const next = text.slice(entry.lastIndex).search(/\n\s*@[A-Za-z]+\s*[{(]/);
    const body = text.slice(entry.lastIndex, next < 0 ? undefined : entry.lastIndex + next);
    const title = /(?:^|[,\s])title\s*=\s*/i.exec(body);
    const raw = title ? fieldValue(body, title.index + title[0].length) : '';
    out.push({
      key: m[2],
      type,
      title: raw.replace(/[{}]/g, '').replace(/\\[a-zA-Z]+\s*/g, '').replace(/\s+/g, ' ').trim()
    });
  }
  return out;
}

const BIB_FRESH_MS = 5000;

/** The bibliography of each notebook, read through the Contents API and kept a few seconds. */
class Bibliographies {
  constructor(contents: Contents.IManager) {
    this._contents = contents;
  }

  async entries(panel: NotebookPanel): Promise<IBibEntry[]> {
    const meta = (panel.content.model?.getMetadata('mechnb') ?? {}) as Record<string, unknown>;
    const name = typeof meta.bibliography === 'string' ? meta.bibliography.trim() : '';
    if (!name) {
      return [];
    }
    const path = PathExt.join(PathExt.dirname(panel.context.path), name);
    const hit = this._cache.get(path);
    if (hit && Date.now() - hit.at < BIB_FRESH_MS) {
      return hit.entries;
    }
    try {
      const file = await this._contents.get(path, { content: true, format: 'text', type: 'file' });
      const entries = parseBib(String(file.content ?? ''));
      this._cache.set(path, { at: Date.now(), entries });
      return entries;
    } catch {
      return []; // no such file: the check reports it (MECH016/017); completion offers nothing
    }
  }

  private _contents: Contents.IManager;
  private _cache = new Map<string, { at: number; entries: IBibEntry[] }>();
}

function isMarkdownEditor(editor: CodeEditor.IEditor | null | undefined): boolean {
  const mime = editor?.model.mimeType ?? '';
  return /markdown|ipythongfm/.test(mime);
}

/** The completion provider: labels after a reference command, keys after a citation. */
export class ReferenceCompletionProvider implements ICompletionProvider {
  readonly identifier = 'mechnb:references';
  readonly rank = 900;
  readonly renderer = null;

  constructor(contents: Contents.IManager) {
    this._bibs = new Bibliographies(contents);
  }

  async isApplicable(context: ICompletionContext): Promise<boolean> {
    return context.widget instanceof NotebookPanel && isMarkdownEditor(context.editor);
  }

  async fetch(
    request: CompletionHandler.IRequest,
    context: ICompletionContext
  ): Promise<CompletionHandler.ICompletionItemsReply> {
    const panel = context.widget as NotebookPanel;
    const query = completionQuery(request.text.slice(0, request.offset));
    const start = request.offset - (query?.typed.length ?? 0);
    if (!query) {
      return { start: request.offset, end: request.offset, items: [] };
    }
    const typed = query.typed.toLowerCase();
    const items: CompletionHandler.ICompletionItem[] = [];
    if (query.kind === 'label') {
      for (const { key, what } of notebookLabels(panel)) {
        if (key.toLowerCase().includes(typed)) {
          items.push({ label: key, insertText: key, type: 'label', documentation: what });
        }
      }
    } else {
      for (const { key, type, title } of await this._bibs.entries(panel)) {
        const shown = title ? `${key} — ${title.length > 70 ? title.slice(0, 69) + '…' : title}` : key;
        if (key.toLowerCase().includes(typed) || title.toLowerCase().includes(typed)) {
          items.push({ label: shown, insertText: key, type, documentation: title });
        }
      }
    }
    return { start, end: request.offset, items };
  }

  private _bibs: Bibliographies;
}

/** Open a completer by itself when a reference or citation is started in a markdown cell.
 *
 * It is a completer of its own (JupyterLab's `Completer`, `CompletionHandler` and
 * `ProviderReconciliator`) that asks only the reference provider: the shared notebook completer
 * also asks the kernel, which in a markdown cell answers only after JupyterLab's one-second
 * provider timeout (measured: ~1030 ms to the list with a kernel, 20–45 ms without). Tab still
 * opens the shared one, which lists the references too. JupyterLab's continuous hinting is off
 * by default, hence the trigger on the opening brace or `@`.
 */
export function autoOpenCompletion(
  tracker: INotebookTracker,
  provider: ReferenceCompletionProvider
): void {
  const completer = new Completer({ model: new CompleterModel() });
  completer.hide();
  Widget.attach(completer, document.body);
  let handler: CompletionHandler | null = null;
  // Enter and Tab are bound (completer:select-notebook) to the shared completer's selection;
  // while this one is open they choose its item (window capture: before JupyterLab's keys)
  window.addEventListener(
    'keydown',
    event => {
      if (completer.isVisible && (event.key === 'Enter' || event.key === 'Tab')
          && !event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey) {
        event.preventDefault();
        event.stopImmediatePropagation();
        completer.selectActive();
      }
    },
    true
  );

  const open = (panel: NotebookPanel, editor: CodeEditor.IEditor): void => {
    const reconciliator = new ProviderReconciliator({
      context: { widget: panel, editor },
      providers: [provider],
      timeout: 1000
    });
    if (!handler) {
      handler = new CompletionHandler({ completer, reconciliator });
    } else {
      handler.reconciliator = reconciliator;
    }
    handler.editor = editor;
    handler.invoke();
  };

  tracker.widgetAdded.connect((_, panel) => {
    let watched: ICellModel | null = null;
    const onChange = (): void => {
      requestAnimationFrame(() => {
        const cell = panel.content.activeCell;
        const editor = cell?.editor;
        if (!cell || cell.model !== watched || cell.model.type !== 'markdown' || !editor
            || !editor.hasFocus()) {
          return;
        }
        const offset = editor.getOffsetAt(editor.getCursorPosition());
        const source = editor.model.sharedModel.getSource();
        if (opensCompletion(source.slice(Math.max(0, offset - 200), offset))) {
          open(panel, editor);
        }
      });
    };
    const follow = (): void => {
      watched?.contentChanged.disconnect(onChange);
      watched = panel.content.activeCell?.model ?? null;
      watched?.contentChanged.connect(onChange);
      if (handler && handler.editor !== panel.content.activeCell?.editor) {
        completer.reset();
        handler.editor = null; // typing elsewhere must not drive this completer
      }
    };
    panel.content.activeCellChanged.connect(follow);
    follow();
  });
}

/** Text the spell checker must skip: math, code, commands and their arguments. */
const NOT_PROSE = new RegExp(
  [
    String.raw`\$\$[\s\S]*?\$\$`, // display math
    String.raw`\\\[[\s\S]*?\\\]`,
    String.raw`\\begin\{([a-zA-Z*]+)\}[\s\S]*?\\end\{\1\}`, // environments
    String.raw`(?<!\\)\$(?!\s)[^$\n]+?(?<![\s\\])\$`, // inline math
    String.raw`\\\([\s\S]*?\\\)`,
    '```[\\s\\S]*?(?:```|$)', // fenced code
    '~~~[\\s\\S]*?(?:~~~|$)',
    '`[^`\\n]+`', // inline code
    String.raw`\\[a-zA-Z@]+\*?(?:\[[^\]\n]*\])?(?:\{[^{}\n]*\})?`, // a command and its argument
    String.raw`\[@[^\]\n]*\]|(?<![\w])@[\w:./-]+`, // citations
    String.raw`<[^>\n]+>`, // HTML tags
    String.raw`https?://\S+`
  ].join('|'),
  'g'
);

const noSpell = Decoration.mark({ attributes: { spellcheck: 'false' } });

function proseDecorations(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const text = view.state.doc.toString();
  NOT_PROSE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NOT_PROSE.exec(text)) !== null) {
    if (m[0].length === 0) {
      NOT_PROSE.lastIndex++;
      continue;
    }
    builder.add(m.index, m.index + m[0].length, noSpell);
  }
  return builder.finish();
}

const skipNonProse = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet;
    constructor(view: EditorView) {
      this.decorations = proseDecorations(view);
    }
    update(update: ViewUpdate): void {
      if (update.docChanged) {
        this.decorations = proseDecorations(update.view);
      }
    }
  },
  { decorations: v => v.decorations }
);

/** The browser's spell checking in markdown cells (prose only). */
export function registerSpellcheck(registry: IEditorExtensionRegistry): void {
  registry.addExtension({
    name: 'mechnb:spellcheck',
    factory: options =>
      /markdown|ipythongfm/.test(options.model.mimeType)
        ? EditorExtensionRegistry.createImmutableExtension([
            EditorView.contentAttributes.of({ spellcheck: 'true' }),
            skipNonProse
          ])
        : null
  });
}
