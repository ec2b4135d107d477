import { ICellModel, ICodeCellModel, MarkdownCell } from '@jupyterlab/cells';
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { JSONObject } from '@lumino/coreutils';

import { TAG_PREFIX } from './commands';

/** A cell as sent by the kernel (mechnb.cellspec.CellSpec.to_message()). */
export interface ICellMessage {
  cell_type: 'markdown' | 'code' | 'raw';
  source: string;
  metadata: JSONObject;
}

/** Index of the cell with nbformat id `cellId`, or -1. */
export function cellIndex(notebook: Notebook, cellId: string | null): number {
  const cells = notebook.model?.cells;
  if (!cells || !cellId) {
    return -1;
  }
  for (let i = 0; i < cells.length; i++) {
    if (cells.get(i).id === cellId) {
      return i;
    }
  }
  return -1;
}

/** Role and label a kernel message gives a cell (null role for plain cells). */
function messageRole(cell: ICellMessage): { role: string | null; label: string | null } {
  const mech = cell.metadata?.mechnb as JSONObject | undefined;
  const role = mech && typeof mech.role === 'string' ? mech.role : null;
  const label = mech && typeof mech.label === 'string' ? mech.label : null;
  return { role, label };
}

/**
 * True when the cells right after `at` already are `cells` (same type, role and label; same
 * source for cells without a role): the magic's cell was simply run again, so inserting would
 * duplicate the template under text the user may already have written.
 */
export function alreadyInserted(notebook: Notebook, at: number, cells: ICellMessage[]): boolean {
  const model = notebook.model;
  if (!model || at + cells.length > model.cells.length) {
    return false;
  }
  return cells.every((cell, i) => {
    const existing = model.cells.get(at + i);
    if (existing.type !== cell.cell_type) {
      return false;
    }
    const want = messageRole(cell);
    const have = cellRole(existing);
    if (want.role === null) {
      return have === null && existing.sharedModel.getSource() === cell.source;
    }
    return have !== null && have.role === want.role && have.label === want.label;
  });
}

/**
 * Insert `cells` directly below the cell `afterCellId` (else below the active cell), keeping their
 * metadata; markdown cells are shown rendered. Existing cells are never changed, and running the
 * same magic cell again does not insert a second copy (see `alreadyInserted`).
 */
export function insertCells(
  panel: NotebookPanel,
  cells: ICellMessage[],
  afterCellId: string | null
): boolean {
  const notebook = panel.content;
  const model = notebook.model;
  if (!model || cells.length === 0) {
    return false;
  }
  let anchor = cellIndex(notebook, afterCellId);
  if (anchor < 0) {
    anchor = notebook.activeCellIndex;
  }
  const at = Math.min(Math.max(anchor + 1, 0), model.cells.length);
  if (alreadyInserted(notebook, at, cells)) {
    return true;
  }
  model.sharedModel.insertCells(
    at,
    cells.map(cell => {
      const base = {
        cell_type: cell.cell_type,
        source: cell.source,
        metadata: cell.metadata ?? {}
      };
      return cell.cell_type === 'code'
        ? { ...base, outputs: [], execution_count: null }
        : base;
    }) as any
  );
  for (let i = at; i < at + cells.length; i++) {
    const widget = notebook.widgets[i];
    if (widget instanceof MarkdownCell) {
      widget.rendered = true;
    }
  }
  return true;
}

/** Insert `text` at the cursor of the active cell's editor (a rendered markdown cell opens). */
export function insertText(panel: NotebookPanel, text: string): boolean {
  const notebook = panel.content;
  const cell = notebook.activeCell;
  if (!cell) {
    return false;
  }
  // Being edited: at the cursor. Otherwise: appended as a new sentence, after a space.
  const editing = notebook.mode === 'edit';
  if (cell instanceof MarkdownCell && cell.rendered) {
    cell.rendered = false;
  }
  const editor = cell.editor;
  if (!editor) {
    return false;
  }
  const shared = cell.model.sharedModel;
  let start: number;
  if (editing) {
    const selection = editor.getSelection();
    const a = editor.getOffsetAt(selection.start);
    const b = editor.getOffsetAt(selection.end);
    start = Math.min(a, b);
    editor.replaceSelection?.(text);
  } else {
    const source = shared.getSource();
    const gap = source.length === 0 || /\s$/.test(source) ? '' : ' ';
    shared.updateSource(source.length, source.length, gap + text);
    start = source.length + gap.length;
    notebook.mode = 'edit';
  }
  // The first [slot] of the phrase is selected, ready to be typed over.
  const slot = /\[[^\]\n]+\]/.exec(text);
  if (slot) {
    const from = start + slot.index;
    editor.setSelection({
      start: editor.getPositionAt(from)!,
      end: editor.getPositionAt(from + slot[0].length)!
    });
  }
  editor.focus();
  return true;
}

/** Make the cell `cellId` (else the cell at `fallbackIndex`) active and scroll to it. */
export function selectCell(
  panel: NotebookPanel,
  cellId: string | null,
  fallbackIndex: number | null = null
): boolean {
  const notebook = panel.content;
  const count = notebook.model?.cells.length ?? 0;
  let index = cellIndex(notebook, cellId);
  if (index < 0 && fallbackIndex !== null && fallbackIndex < count) {
    index = fallbackIndex;
  }
  if (index < 0) {
    return false;
  }
  notebook.mode = 'command';
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  void notebook.scrollToItem(index, 'center').catch(() => undefined);
  notebook.activate();
  return true;
}

/** The role of a cell: metadata.mechnb.role, else a mech:<role> tag (DESIGN.md §2). */
export function cellRole(
  model: ICellModel
): { role: string; label: string | null } | null {
  const mech = model.getMetadata('mechnb');
  let role: string | null = null;
  let label: string | null = null;
  if (mech && typeof mech === 'object' && !Array.isArray(mech)) {
    if (typeof mech.role === 'string' && mech.role) {
      role = mech.role;
    }
    if (typeof mech.label === 'string' && mech.label) {
      label = mech.label;
    }
  }
  if (role === null) {
    const tags = model.getMetadata('tags');
    if (Array.isArray(tags)) {
      const tag = tags.find(
        t => typeof t === 'string' && t.startsWith(TAG_PREFIX) && t.length > TAG_PREFIX.length
      );
      if (typeof tag === 'string') {
        role = tag.slice(TAG_PREFIX.length);
      }
    }
  }
  return role === null ? null : { role, label };
}

/**
 * Set (or with `role === null` clear) a cell's role: metadata.mechnb.role/label and the mirror
 * tag, like mechnb.notebook.set_role. `label` undefined keeps the old label, '' removes it.
 */
export function writeRole(
  model: ICellModel,
  role: string | null,
  label?: string
): void {
  const old = model.getMetadata('mechnb');
  const mech: JSONObject =
    old && typeof old === 'object' && !Array.isArray(old) ? { ...(old as JSONObject) } : {};
  const oldTags = model.getMetadata('tags');
  const tags = (Array.isArray(oldTags) ? oldTags : []).filter(
    t => typeof t === 'string' && !t.startsWith(TAG_PREFIX)
  ) as string[];
  if (role === null) {
    delete mech.role;
    delete mech.label;
  } else {
    mech.role = role;
    tags.push(TAG_PREFIX + role);
    if (label !== undefined) {
      if (label) {
        mech.label = label;
      } else {
        delete mech.label;
      }
    }
  }
  if (Object.keys(mech).length > 0) {
    model.setMetadata('mechnb', mech);
  } else {
    model.deleteMetadata('mechnb');
  }
  if (tags.length > 0) {
    model.setMetadata('tags', tags);
  } else {
    model.deleteMetadata('tags');
  }
}

/**
 * The one-cell Quickstart (`%load_ext mechnb` and a magic in one cell): the kernel could not hear
 * this extension's `hello` while that cell ran, so it showed the cells as an output marked
 * `insert_when_done`. When the cell has finished, turn such outputs into real cells below it and
 * remove them. Only the client that ran the cell sees `executed`, so in a shared notebook the
 * cells are inserted once.
 */
export function adoptShownCells(panel: NotebookPanel, cell: ICellModel): boolean {
  if (cell.type !== 'code') {
    return false;
  }
  const outputs = (cell as ICodeCellModel).outputs;
  const all = outputs.toJSON();
  const shown = all.filter(output => {
    const mech = (output.metadata as JSONObject | undefined)?.mechnb as JSONObject | undefined;
    return mech?.insert_when_done === true && Array.isArray(mech.cells);
  });
  if (shown.length === 0) {
    return false;
  }
  const cells: ICellMessage[] = [];
  for (const output of shown) {
    const mech = (output.metadata as JSONObject).mechnb as JSONObject;
    cells.push(...(mech.cells as unknown as ICellMessage[]));
  }
  const keep = all.filter(output => !shown.includes(output));
  outputs.clear();
  keep.forEach(output => outputs.add(output));
  return insertCells(panel, cells, cell.id);
}
