import type { DocumentRegistry } from '@jupyterlab/docregistry';

const pending = new WeakMap<DocumentRegistry.Context, Promise<void>>();

/**
 * Save `context`, or join the save of it already on its way. Two saves at once make the second
 * find the file newer than it knows, and JupyterLab then asks "changed on disk: overwrite or
 * revert?" — a dialog that takes the keys being typed. Every save the extension starts (preview
 * build, check, export) goes through here.
 */
export function saveOnce(context: DocumentRegistry.Context): Promise<void> {
  let saving = pending.get(context);
  if (!saving) {
    saving = context.save().finally(() => pending.delete(context));
    pending.set(context, saving);
  }
  return saving;
}
