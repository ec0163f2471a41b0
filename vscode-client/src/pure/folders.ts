// Which workspace folder a command works on: the active document's, the only one, or ask.
// Pure decision; ../folders.ts (the vscode side) shows the picker when the answer is 'ask'.

export type FolderChoice<F> = { kind: 'use'; folder: F } | { kind: 'ask'; folders: readonly F[] } | { kind: 'none' };

/**
 * `active`: the workspace folder that contains the active editor's document (undefined when no
 * editor is active or its document is outside every folder). The active document's folder wins;
 * with no such document, a single folder is used and several are offered to pick from.
 */
export function chooseFolder<F>(active: F | undefined, folders: readonly F[] | undefined): FolderChoice<F> {
  if (active !== undefined) return { kind: 'use', folder: active };
  const all = folders ?? [];
  if (all.length === 0) return { kind: 'none' };
  if (all.length === 1) return { kind: 'use', folder: all[0] };
  return { kind: 'ask', folders: all };
}
