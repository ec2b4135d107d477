/**
 * The cell Properties dialog (`mechnb:cell-properties`, JupyterLab and Notebook 7): role, label,
 * title, caption, `validates` and kind of the active cell in one form, checked as you type (label
 * syntax, a label another cell already has) and written in one step through `writeRole`, so
 * `metadata.mechnb` and the `mech:<role>` tag stay in step (DESIGN.md §2). The change is one
 * undo step of the cell (Ctrl+Z in its editor), and the notification after it has an Undo button.
 */
import { ICellModel } from '@jupyterlab/cells';
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { NotebookPanel } from '@jupyterlab/notebook';
import { JSONObject, JSONValue } from '@lumino/coreutils';
import { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { IRoleInfo } from './api';
import { cellRole, writeRole } from './cells';

/** Experiment kinds of DESIGN.md §2 (others are accepted, these are offered). */
const KINDS = ['controlled', 'real-model', 'intervention', 'ablation'];

/** What a LaTeX label cannot hold in the .tex (mechnb/tex/escape.py, MECH checks). */
const BAD_LABEL = /[\s#%\\{}$&~^,]/;

/** The fields the dialog edits, as they stand in `metadata.mechnb`. */
export interface ICellProperties {
  role: string;
  label: string;
  title: string;
  caption: string;
  validates: string[];
  kind: string;
}

/** Every label of the notebook except those of cell `skip`: cell labels and `\label{…}`s. */
export function notebookLabels(panel: NotebookPanel, skip = -1): Map<string, number> {
  const found = new Map<string, number>();
  const cells = panel.content.model?.cells;
  if (!cells) {
    return found;
  }
  for (let i = 0; i < cells.length; i++) {
    if (i === skip) {
      continue;
    }
    const model = cells.get(i);
    const own = cellRole(model)?.label;
    if (own && !found.has(own)) {
      found.set(own, i);
    }
    if (model.type !== 'code') {
      const re = /\\label\s*\{([^{}]*)\}/g;
      const text = model.sharedModel.getSource();
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const name = m[1].trim();
        if (name && !found.has(name)) {
          found.set(name, i);
        }
      }
    }
  }
  return found;
}

/** Why `label` cannot be used (null when it can): its characters, or another cell has it. */
export function labelProblem(label: string, others: Map<string, number>): string | null {
  if (!label) {
    return null;
  }
  const bad = BAD_LABEL.exec(label);
  if (bad) {
    const what = /\s/.test(bad[0]) ? 'a space' : `“${bad[0]}”`;
    return `A label cannot hold ${what} (nor spaces, # % \\ { } $ & ~ ^ ,).`;
  }
  const at = others.get(label);
  if (at !== undefined) {
    return `Cell ${at + 1} already has the label “${label}”.`;
  }
  return null;
}

function readProperties(model: ICellModel): ICellProperties {
  const mech = model.getMetadata('mechnb');
  const m = (mech && typeof mech === 'object' && !Array.isArray(mech) ? mech : {}) as JSONObject;
  const str = (v: JSONValue | undefined) => (typeof v === 'string' ? v : '');
  const role = cellRole(model);
  return {
    role: role?.role ?? '',
    label: role?.label ?? str(m.label),
    title: str(m.title),
    caption: str(m.caption),
    validates: Array.isArray(m.validates)
      ? (m.validates.filter(v => typeof v === 'string') as string[])
      : typeof m.validates === 'string'
        ? [m.validates]
        : [],
    kind: str(m.kind)
  };
}

function field(
  form: HTMLElement,
  label: string,
  el: HTMLElement,
  hint = '',
  tag: 'label' | 'div' = 'label'
): HTMLElement {
  const line = document.createElement(tag);
  line.className = 'mechnb-form-row';
  const name = document.createElement('span');
  name.textContent = label;
  line.append(name, el);
  const small = document.createElement('small');
  small.textContent = hint;
  line.append(small);
  form.append(line);
  return small;
}

/** The form of the Properties dialog. */
export class PropertiesForm extends Widget {
  constructor(
    props: ICellProperties,
    roles: IRoleInfo[],
    labels: Map<string, number>
  ) {
    super();
    this.addClass('mechnb-form');
    this.addClass('mechnb-properties');
    this._labels = labels;
    this._roles = roles;

    this._role = document.createElement('select');
    this._role.name = 'role';
    const none = document.createElement('option');
    none.value = '';
    none.textContent = '(no role)';
    this._role.append(none);
    const names = roles.map(r => r.name);
    if (props.role && !names.includes(props.role)) {
      names.unshift(props.role); // an unknown role is shown, not dropped
    }
    for (const name of names) {
      const option = document.createElement('option');
      option.value = name;
      const info = roles.find(r => r.name === name);
      option.textContent = info ? `${name} — ${info.purpose.en}` : `${name} (unknown role)`;
      this._role.append(option);
    }
    this._role.value = props.role;
    this._roleHint = field(this.node, 'Role', this._role);

    this._label = this._input('label', props.label);
    this._labelHint = field(this.node, 'Label', this._label);
    this._title = this._input('title', props.title);
    field(this.node, 'Title', this._title, 'the heading or environment title, e.g. Informal');
    this._caption = document.createElement('textarea');
    this._caption.name = 'caption';
    this._caption.rows = 3;
    this._caption.value = props.caption;
    field(this.node, 'Caption', this._caption,
      'for a figure or table: say what it shows and what it validates (TeX math allowed)');

    // validates: a checkbox per label of the notebook; a label that no longer exists stays
    // listed (checked, marked) so that nothing is dropped without the user seeing it
    this._validates = document.createElement('div');
    this._validates.className = 'mechnb-validates';
    this._validates.setAttribute('role', 'group');
    const all = [...labels.keys()];
    for (const v of props.validates) {
      if (!labels.has(v)) {
        all.push(v);
      }
    }
    if (all.length === 0) {
      this._validates.textContent = 'The notebook has no labels yet.';
    }
    for (const name of all) {
      const item = document.createElement('label');
      item.className = 'mechnb-validates-item';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.name = 'validates';
      box.value = name;
      box.checked = props.validates.includes(name);
      const text = document.createElement('span');
      const at = labels.get(name);
      text.textContent = at === undefined ? `${name} (not found)` : `${name} (cell ${at + 1})`;
      item.append(box, text);
      this._validates.append(item);
    }
    field(this.node, 'Validates', this._validates,
      'the claims this cell’s evidence supports', 'div');

    this._kind = this._input('kind', props.kind);
    const list = document.createElement('datalist');
    list.id = `mechnb-kinds-${Math.random().toString(36).slice(2)}`;
    for (const k of KINDS) {
      const option = document.createElement('option');
      option.value = k;
      list.append(option);
    }
    this._kind.setAttribute('list', list.id);
    this.node.append(list);
    field(this.node, 'Kind', this._kind, KINDS.join(', '));

    for (const el of [this._role, this._label, this._title, this._caption, this._kind]) {
      el.addEventListener('input', () => this._validate());
      el.addEventListener('change', () => this._validate());
    }
  }

  private _input(name: string, value: string): HTMLInputElement {
    const el = document.createElement('input');
    el.name = name;
    el.value = value;
    el.spellcheck = false;
    return el;
  }

  protected onAfterAttach(msg: Message): void {
    super.onAfterAttach(msg);
    // before the dialog's own (capturing) Enter handler: Enter on a bad label keeps the dialog
    // open with what was typed, instead of closing it and dropping the edit
    window.addEventListener('keydown', this._guard, true);
    this._validate();
    this._role.focus();
  }

  protected onBeforeDetach(msg: Message): void {
    window.removeEventListener('keydown', this._guard, true);
    super.onBeforeDetach(msg);
  }

  private _guard = (event: KeyboardEvent): void => {
    if (event.key === 'Enter' && this.node.contains(event.target as Node) &&
        !(event.target instanceof HTMLTextAreaElement) && !this._validate()) {
      event.preventDefault();
      event.stopPropagation();
    }
  };

  /** Check the form; show the problem at its field and allow Apply only when there is none. */
  private _validate(): boolean {
    const role = this._role.value;
    const label = this._label.value.trim();
    const info = this._roles.find(r => r.name === role);
    let problem = labelProblem(label, this._labels);
    this._label.placeholder = info?.label_prefix ? `${info.label_prefix}:name` : '';
    this._labelHint.textContent =
      problem ?? (info?.label_prefix ? `LaTeX label, e.g. ${info.label_prefix}:main` : 'LaTeX label');
    this._labelHint.classList.toggle('mechnb-form-error', problem !== null);
    this._label.setAttribute('aria-invalid', problem ? 'true' : 'false');
    const extra = [label, this._title.value, this._caption.value, this._kind.value].some(
      v => v.trim()
    ) || this._checked().length > 0;
    let roleProblem: string | null = null;
    if (!role && extra) {
      roleProblem = 'Choose a role: a cell without one keeps no label, title, caption or kind.';
    }
    this._roleHint.textContent = roleProblem ?? '';
    this._roleHint.classList.toggle('mechnb-form-error', roleProblem !== null);
    problem = problem ?? roleProblem;
    const dialog = this.node.closest('.jp-Dialog');
    const accept = dialog?.querySelector('.jp-Dialog-footer .jp-mod-accept') as
      | HTMLButtonElement
      | null;
    if (accept) {
      accept.disabled = problem !== null;
      accept.title = problem ?? '';
    }
    return problem === null;
  }

  private _checked(): string[] {
    return Array.from(this._validates.querySelectorAll('input[type=checkbox]'))
      .filter(box => (box as HTMLInputElement).checked)
      .map(box => (box as HTMLInputElement).value);
  }

  /** The form's values, or null when they are not valid (Enter pressed on a bad label). */
  getValue(): ICellProperties | null {
    if (!this._validate()) {
      return null;
    }
    return {
      role: this._role.value,
      label: this._label.value.trim(),
      title: this._title.value.trim(),
      caption: this._caption.value.trim(),
      validates: this._checked(),
      kind: this._kind.value.trim()
    };
  }

  private _labels: Map<string, number>;
  private _roles: IRoleInfo[];
  private _role: HTMLSelectElement;
  private _roleHint: HTMLElement;
  private _label: HTMLInputElement;
  private _labelHint: HTMLElement;
  private _title: HTMLInputElement;
  private _caption: HTMLTextAreaElement;
  private _validates: HTMLElement;
  private _kind: HTMLInputElement;
}

/**
 * Write `props` to the cell in one transaction (one undo step): the role and label through
 * `writeRole` (metadata and tag in step), then title, caption, validates and kind; an empty field
 * is removed. No role clears the cell's role and its mechnb fields.
 */
export function writeProperties(model: ICellModel, props: ICellProperties): void {
  model.sharedModel.transact(() => {
    if (!props.role) {
      writeRole(model, null);
      const rest = model.getMetadata('mechnb');
      if (rest && typeof rest === 'object' && !Array.isArray(rest)) {
        const mech = { ...(rest as JSONObject) };
        for (const key of ['title', 'caption', 'validates', 'kind']) {
          delete mech[key];
        }
        if (Object.keys(mech).length) {
          model.setMetadata('mechnb', mech);
        } else {
          model.deleteMetadata('mechnb');
        }
      }
      return;
    }
    writeRole(model, props.role, props.label);
    const mech = { ...((model.getMetadata('mechnb') as JSONObject) ?? {}) };
    const put = (key: string, value: JSONValue) => {
      if (value === '' || (Array.isArray(value) && value.length === 0)) {
        delete mech[key];
      } else {
        mech[key] = value;
      }
    };
    put('title', props.title);
    put('caption', props.caption);
    put('validates', props.validates);
    put('kind', props.kind);
    model.setMetadata('mechnb', mech);
  });
}

function snapshot(model: ICellModel): { mechnb?: JSONValue; tags?: JSONValue } {
  return { mechnb: model.getMetadata('mechnb'), tags: model.getMetadata('tags') };
}

function restore(model: ICellModel, old: { mechnb?: JSONValue; tags?: JSONValue }): void {
  model.sharedModel.transact(() => {
    for (const key of ['mechnb', 'tags'] as const) {
      const value = old[key];
      if (value === undefined) {
        model.deleteMetadata(key);
      } else {
        model.setMetadata(key, value);
      }
    }
  });
}

let lastToast: string | null = null;

/** Open the dialog for the active cell of `panel` and apply what the user accepts. */
export async function editCellProperties(
  panel: NotebookPanel,
  roles: IRoleInfo[]
): Promise<boolean> {
  const notebook = panel.content;
  const cell = notebook.activeCell;
  if (!cell) {
    return false;
  }
  const index = notebook.activeCellIndex;
  const model = cell.model;
  const form = new PropertiesForm(readProperties(model), roles, notebookLabels(panel, index));
  const result = await showDialog({
    title: `Cell ${index + 1} properties`,
    body: form,
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Apply' })],
    focusNodeSelector: 'select[name=role]'
  });
  if (!result.button.accept || !result.value || model.isDisposed) {
    return false;
  }
  const before = snapshot(model);
  writeProperties(model, result.value);
  const after = JSON.stringify(snapshot(model));
  if (lastToast) {
    Notification.dismiss(lastToast); // its Undo belongs to an older state
  }
  lastToast = Notification.success(`Cell ${index + 1}: properties applied.`, {
    autoClose: 6000,
    actions: [
      {
        label: 'Undo',
        caption: 'Put the cell’s role, label and properties back as they were',
        callback: () => {
          if (model.isDisposed) {
            return;
          }
          if (JSON.stringify(snapshot(model)) !== after) {
            Notification.warning(
              `Cell ${index + 1} changed since; its properties were left as they are.`
            );
            return;
          }
          restore(model, before);
        }
      }
    ]
  });
  return true;
}
