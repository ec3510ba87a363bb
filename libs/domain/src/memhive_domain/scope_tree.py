"""What a principal may read and write in its workspace's scope tree (Molecule's rules on
Hive's scopes), and which visibility a memory takes when its writer gives none (Hive's rule).

A principal has a home node. It reads:
- its home and every ancestor of it, up to the root (`global`, readable by everyone);
- every node below its home, except agents' LOCAL nodes: an agent's node is read by that
  agent (homed there) and by admins (audit), never by a sibling or a team member;
so a root-homed member (every token issued before the tree) reads everything it read before.
It writes where it reads, except the root: `global` is written only by admins and by
principals homed at the root (Molecule: root-side agents). Viewers write nowhere.

Rights follow the target: a write that changes another memory's standing (supersedes it,
links it as updated or contradicted, flags, pins or forgets it) needs that memory's node
writable, not only the writer's own (`policy.ON_THE_NODE` lists each action).
"""

from __future__ import annotations

from dataclasses import dataclass

from memhive_domain.errors import FieldProblem, InvalidInput, NotAllowed
from memhive_domain.policy import may_write_global
from memhive_domain.principals import Principal, Role
from memhive_domain.scopes import ROOT, ScopeRef, Visibility, parse_scope_path


@dataclass(frozen=True, slots=True)
class TreeView:
    """The nodes a principal reads: its home's lineage, and its home's subtree without
    agents' LOCAL nodes (with them when `reads_local_below`, an admin's audit view)."""

    home: ScopeRef
    reads_local_below: bool = False

    def admits(self, node: ScopeRef) -> bool:
        if node in self.home.lineage:
            return True
        return node.is_below(self.home) and (self.reads_local_below or not node.is_local)

    @property
    def is_everything(self) -> bool:
        return self.home.is_root and self.reads_local_below


def home_of(principal: Principal) -> ScopeRef:
    """The principal's home node; a home that is not a valid path is refused (tokens are
    checked when issued, so this only guards against a corrupt record)."""
    problems: list[FieldProblem] = []
    node = parse_scope_path(principal.home, problems, "home")
    if node is None:
        raise InvalidInput(problems)
    return node


def tree_view(principal: Principal) -> TreeView:
    return TreeView(home_of(principal), reads_local_below=principal.role is Role.ADMIN)


def can_read(principal: Principal, node: ScopeRef) -> bool:
    return tree_view(principal).admits(node)


def reads_memory(principal: Principal, node: ScopeRef, visibility: Visibility) -> bool:
    """The principal reads a memory at this node with this visibility."""
    return principal.can_see(visibility) and can_read(principal, node)


def can_write(principal: Principal, node: ScopeRef) -> bool:
    if not principal.can_write or not can_read(principal, node):
        return False
    return not node.is_root or may_write_global(principal)


def ensure_writable(principal: Principal, node: ScopeRef, doing: str) -> None:
    """Raises NotAllowed (403) saying why, e.g. "cannot supersede: scope 'global' ..."."""
    if not can_write(principal, node):
        raise NotAllowed(f"cannot {doing}: {write_refusal(principal, node)}")


def write_refusal(principal: Principal, node: ScopeRef) -> str:
    """Why `can_write` said no, for the 403 message."""
    if not principal.can_write:
        return "this token is read-only"
    if not can_read(principal, node):
        return f"scope {node.key!r} is outside this token's scope tree (home {principal.home!r})"
    return "only admins and principals homed at the root may write to 'global'"


def default_visibility(node: ScopeRef, product_visibility: Visibility | None) -> Visibility:
    """Hive's rule for a memory saved without a visibility: global is public; a product's
    node and its teams take the product's visibility (private while the product has no
    record); an agent's LOCAL node and a team outside any product are private."""
    if node == ROOT:
        return Visibility.PUBLIC
    if node.product_id and not node.is_local:
        return product_visibility or Visibility.PRIVATE
    return Visibility.PRIVATE
