import type { DocumentRegistry } from '@jupyterlab/docregistry';
import { IChangedArgs, URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { Signal } from '@lumino/signaling';

const pending = new WeakMap<DocumentRegistry.Context, Promise<void>>();
/** JupyterLab's own save of a context whose save `fixCollaborativeSaves` replaced. */
const originalSave = new WeakMap<DocumentRegistry.Context, () => Promise<void>>();

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
      (originalSave.get(context) ?? (() => context.save()))().then(
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


/**
 * With jupyter-collaboration, make the context's own Save and Revert behave as without it
 * (issue 37). Both faults are upstream and met here only by the extension's notebooks:
 *
 * - Save (Ctrl+S, File › Save, the toolbar): JupyterLab checks the file's hash against the one
 *   it last knew before it saves; the server's autosave changes the file without telling the
 *   context, so the check fails and JupyterLab asks "File Changed: overwrite or revert?"
 *   (the dialog of jupyterlab/jupyter-collaboration#312, here from the autosave race). Here a save of a
 *   shared notebook is `saveOnce`: it waits for the server's autosave (it asks for a save
 *   itself only when none comes) and reports `started`/`completed` as a save does, so whatever
 *   listens for saves (the preview) still hears them.
 * - Revert (File › Reload from Disk, Revert to Checkpoint): the collaboration drive answers the
 *   context's read without content, so nothing was reverted; and a restored checkpoint keeps
 *   the checkpoint's older mtime, so the server's watcher (which looks for a newer one) never
 *   reloads the shared document and writes the unreverted one back. Here Revert reads the file
 *   through the contents REST API and puts it into the shared document, which the server then
 *   saves; Revert to Checkpoint first lets a pending autosave finish, so it cannot overwrite
 *   the restored file before it is read.
 */
export function fixCollaborativeSaves(context: DocumentRegistry.Context): void {
  if (!context.model.collaborative || originalSave.has(context)) {
    return;
  }
  const save = context.save.bind(context);
  const restore = context.restoreCheckpoint.bind(context);
  originalSave.set(context, save);
  const state = context.saveState as Signal<DocumentRegistry.Context, DocumentRegistry.SaveState>;
  context.save = async () => {
    state.emit('started');
    try {
      await saveOnce(context);
    } catch (error) {
      state.emit('failed');
      throw error;
    }
    state.emit('completed');
  };
  context.restoreCheckpoint = async (id?: string) => {
    await saveOnce(context).catch(() => undefined);
    return restore(id);
  };
  context.revert = async () => {
    await context.ready;
    const settings = ServerConnection.makeSettings();
    const url =
      URLExt.join(settings.baseUrl, 'api/contents', URLExt.encodeParts(context.localPath)) +
      '?type=notebook&content=1';
    const response = await ServerConnection.makeRequest(url, {}, settings);
    if (!response.ok) {
      throw new ServerConnection.ResponseError(response);
    }
    const model = await response.json();
    context.model.fromJSON(model.content);
    context.model.sharedModel.clearUndoHistory();
  };
}
