/**
 * `mechnb trust` from the UI (GET/POST /mechnb/trust), one dialog for every place that asks:
 * the preview's "Review and approve" and Paper Settings' preamble. It lists exactly what will be
 * approved (the span as it stands in the compiled .tex, or the file), and never offers approval
 * when the gate refuses anything: refused TeX must be removed.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

import { requestAPI } from './api';

/** One item the TeX gate wants a person to read (GET /mechnb/trust). */
export interface IPending {
  digest: string;
  cell: number | null;
  where: string;
  kind: string;
  text: string;
  content: string;
}

/** What the TeX gate refuses (GET /mechnb/trust): never approvable. */
export interface IRefused {
  cell: number | null;
  where: string;
  snippet: string;
  reason: string;
}

/** GET /mechnb/trust. */
export interface ITrustState {
  refused: IRefused[];
  pending: IPending[];
}

/** Where the paper's preamble is named (mechnb.tex.gate.PREAMBLE_WHERE). */
export const PREAMBLE_WHERE = 'notebook metadata.mechnb.preamble';

export function trustState(path: string): Promise<ITrustState> {
  return requestAPI<ITrustState>(`trust?path=${encodeURIComponent(path)}`);
}

/** "cell 7" or the part of the notebook a refusal names. */
export function refusedWhere(item: IRefused): string {
  return item.cell === null ? item.where || 'the notebook' : `cell ${item.cell + 1}`;
}

/**
 * The review dialog for the saved notebook `path`; true when the user approved (the approval is
 * then recorded), false when they cancelled, nothing waited or something is refused.
 */
export async function reviewAndApprove(
  path: string,
  approveLabel = 'Approve and build'
): Promise<boolean> {
  const found = await trustState(path);
  const body = new Widget();
  body.addClass('jp-mechnb-trust');
  if (found.refused.length) {
    // refused content is never offered for approval, whatever else waits
    const p = document.createElement('p');
    p.textContent =
      `${found.refused.length} place(s) are refused and cannot be approved; ` +
      'remove them to build:';
    body.node.appendChild(p);
    for (const item of found.refused) {
      const row = document.createElement('div');
      row.className = 'jp-mechnb-trust-item jp-mechnb-trust-refused';
      row.textContent = `${refusedWhere(item)}: ${item.reason}`;
      body.node.appendChild(row);
      if (item.snippet) {
        const pre = document.createElement('pre');
        pre.textContent = item.snippet;
        body.node.appendChild(pre);
      }
    }
    await showDialog({
      title: 'Refused TeX: this notebook cannot be built as it is',
      body,
      buttons: [Dialog.okButton()]
    });
    return false;
  }
  for (const item of found.pending) {
    const head = document.createElement('div');
    head.className = 'jp-mechnb-trust-item';
    head.textContent = item.text;
    body.node.appendChild(head);
    if (item.content) {
      const pre = document.createElement('pre');
      pre.textContent = item.content;
      body.node.appendChild(pre);
    }
  }
  if (!found.pending.length) {
    const p = document.createElement('p');
    p.textContent = 'Nothing waits for approval.';
    body.node.appendChild(p);
  }
  const answer = await showDialog({
    title: 'Review the TeX this notebook sends to TeX',
    body,
    buttons: found.pending.length
      ? [Dialog.cancelButton(), Dialog.okButton({ label: approveLabel })]
      : [Dialog.okButton()]
  });
  if (!answer.button.accept || !found.pending.length) {
    return false;
  }
  await requestAPI('trust', {
    method: 'POST',
    body: JSON.stringify({ path, digests: found.pending.map(p => p.digest) })
  });
  return true;
}
