import type { DocumentRegistry } from '@jupyterlab/docregistry';
import type { IChangedArgs } from '@jupyterlab/coreutils';

const pending = new WeakMap<DocumentRegistry.Context, Promise<void>>();

/** With jupyter-collaboration: how long to wait for the server's autosave before asking. */
const AUTOSAVE_WAIT_MS = 3_000;
/** With jupyter-collaboration: how long a save may take before it counts as failed. */
const COLLABORATIVE_SAVE_MS = 15_000;

/**
 * Save `context`, or join the save of it already on its way. Two saves at once make the second
 * find the file newer than it knows, and JupyterLab then asks "changed on disk: overwrite or
 * revert?" — a dialog that takes the keys being typed. Every save the extension starts (preview
 * build, check, export) goes through here.
 */
export function saveOnce(context: DocumentRegistry.Context): Promise<void> {
  let saving = pending.get(context);
  if (!saving) {
    saving = saved(context).finally(() => pending.delete(context));
    pending.set(context, saving);
  }
  return saving;
}

/**
 * `context.save()` without collaboration. With jupyter-collaboration the server writes the
 * shared document itself, a second after each change, and marks it clean; asking it to save as
 * well races that autosave two ways (jupyter_server_ydoc 3.0, JupyterLab 4.6): JupyterLab may
 * find the file's hash changed under it and ask "File Changed: overwrite or revert?", and an
 * autosave that cancels the requested save before it has run leaves the request unanswered, so
 * whoever waited (preview, check, export) waited forever. So this waits for the document to
 * turn clean, asks for a save only if that has not happened within `AUTOSAVE_WAIT_MS` (autosave
 * may be switched off), and fails with a message after `COLLABORATIVE_SAVE_MS`.
 */
function saved(context: DocumentRegistry.Context): Promise<void> {
  const model = context.model;
  if (!model.collaborative) {
    return context.save();
  }
  if (!model.dirty) {
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    let ask = 0;
    let timer = 0;
    const finish = (error?: unknown) => {
      window.clearTimeout(ask);
      window.clearTimeout(timer);
      model.stateChanged.disconnect(onState);
      if (error === undefined) {
        resolve();
      } else {
        reject(error);
      }
    };
    const onState = (_: unknown, change: IChangedArgs<unknown, unknown, string>) => {
      if (change.name === 'dirty' && change.newValue === false) {
        finish();
      }
    };
    model.stateChanged.connect(onState);
    ask = window.setTimeout(() => {
      context.save().then(
        () => finish(),
        error => finish(error)
      );
    }, AUTOSAVE_WAIT_MS);
    timer = window.setTimeout(() => {
      const seconds = COLLABORATIVE_SAVE_MS / 1000;
      finish(new Error(`the collaboration server did not save the notebook within ${seconds} s`));
    }, COLLABORATIVE_SAVE_MS);
  });
}
