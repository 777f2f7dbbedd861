import type { Session } from "../model/session.js";
import type { SessionTree, TreeNode } from "./tree.js";

/**
 * The leaf each entry is counted under by `usage --by leaf`, so that every entry counts once: an entry belongs to
 * the leaf reached by always taking the oldest child (pi's tree order: timestamp, then file order), the branch the
 * conversation first took; a later branch owns only what it added after its branch point. By entry index.
 */
export function ownerLeaves(session: Session, tree: SessionTree): Int32Array {
  const owner = new Int32Array(session.entries.length).fill(-1);
  // Post-order without recursion: a node's owner is its oldest child's owner, or itself.
  const stack: { node: TreeNode; expanded: boolean }[] = tree.roots.map((node) => ({ node, expanded: false }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: TreeNode; expanded: boolean };
    if (!top.expanded && top.node.children.length > 0) {
      top.expanded = true;
      for (const c of top.node.children) stack.push({ node: c, expanded: false });
      continue;
    }
    stack.pop();
    const first = top.node.children[0];
    owner[top.node.rec.index] = first === undefined ? top.node.rec.index : (owner[first.rec.index] as number);
  }
  return owner;
}
