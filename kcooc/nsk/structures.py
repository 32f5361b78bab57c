"""Labelled discrete structures from JSON lines, integer-encoded for the compiled kernels.

One object per line, with a binary ``label`` (1/0; absent or null = unknown) and either
``"tuples": [[edge, node], ...]`` (a path: a sequence of (edge label, node label) tuples) or
``"tree": {"edge": e, "node": n, "children": [...]}`` (a tree; the root's edge may be anything,
e.g. "root"). Labels become ids through a ``Labels`` table that only grows, so ids seen by a model
keep their meaning and new labels get new ids.
"""

from __future__ import annotations

import dataclasses
import json
import lzma
import zlib

import numpy as np

from ..artifact import check_arrays
from ..errors import InputError
from ..io.limits import display_name
from ..io.readers import open_input, raw_lines


class Labels:
    """String label <-> id, append-only."""

    def __init__(self, names: list[str] | None = None):
        self.names: list[str] = list(names or [])
        self.index = {name: i for i, name in enumerate(self.names)}

    def id(self, name: str) -> int:
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
        return self.index[name]

    def __len__(self) -> int:
        return len(self.names)


@dataclasses.dataclass
class Structures:
    kind: str                # "path" or "tree"
    edges: np.ndarray        # edge label id of every tuple / node, structure after structure
    nodes: np.ndarray        # node label id
    ptr: np.ndarray          # structure x holds items ptr[x]:ptr[x+1]
    child_ptr: np.ndarray    # trees: item i's children are children[child_ptr[i]:child_ptr[i+1]] (local indices)
    children: np.ndarray
    labels: np.ndarray       # 1, 0, or -1 (unknown)
    truncated: int = 0       # structures cut to max_items when read

    def __len__(self) -> int:
        return self.ptr.size - 1

    def subset(self, items: np.ndarray) -> "Structures":
        items = np.asarray(items, np.int64)
        spans = [np.arange(self.ptr[x], self.ptr[x + 1]) for x in items]
        flat = np.concatenate(spans) if spans else np.zeros(0, np.int64)
        ptr = np.r_[0, np.cumsum([s.size for s in spans])].astype(np.int64)
        if self.kind == "path":
            child_ptr, children = np.zeros(flat.size + 1, np.int64), np.zeros(0, np.int64)
        else:
            kids = [self.children[self.child_ptr[i]:self.child_ptr[i + 1]] for i in flat]
            child_ptr = np.r_[0, np.cumsum([k.size for k in kids])].astype(np.int64)
            children = np.concatenate(kids).astype(np.int64) if kids else np.zeros(0, np.int64)
        return Structures(self.kind, self.edges[flat], self.nodes[flat], ptr, child_ptr, children, self.labels[items])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"edges": self.edges, "nodes": self.nodes, "ptr": self.ptr, "child_ptr": self.child_ptr,
                "children": self.children, "labels": self.labels}

    @classmethod
    def from_arrays(cls, kind: str, arrays: dict[str, np.ndarray], n_edges: int, n_nodes: int) -> "Structures":
        """Structures from saved arrays, checked first: the compiled kernels index with them unchecked.

        ptr and child_ptr must be offsets from 0 to the item / child count; label ids below the label
        tables' sizes; a child's local index inside its structure and after its parent (pre-order).
        """
        if kind not in ("path", "tree"):
            raise InputError(f"structure kind must be path or tree, got {kind!r}")
        check_arrays({k: arrays[k] for k in STRUCTURE_ARRAYS},
                     {"edges": ("iu", ("items",)), "nodes": ("iu", ("items",)), "ptr": ("iu", ("structures+1",)),
                      "child_ptr": ("iu", ("items+1",)), "children": ("iu", ("children",)),
                      "labels": ("iu", ("structures",))})
        s = cls(kind, *(np.asarray(arrays[k], np.int64) for k in STRUCTURE_ARRAYS))
        if s.labels.size != s.ptr.size - 1:
            raise InputError(f"{s.labels.size} labels for {s.ptr.size - 1} structures")
        for name, offsets, total in (("ptr", s.ptr, s.edges.size), ("child_ptr", s.child_ptr, s.children.size)):
            if offsets[0] != 0 or offsets[-1] != total or (np.diff(offsets) < 0).any():
                raise InputError(f"{name} must rise from 0 to {total}")
        for name, ids, size in (("edges", s.edges, n_edges), ("nodes", s.nodes, n_nodes)):
            if ids.size and (ids.min() < 0 or ids.max() >= size):
                raise InputError(f"{name} holds label ids outside 0..{size - 1}")
        if not np.isin(s.labels, (-1, 0, 1)).all():
            raise InputError("labels must be 1, 0 or -1")
        if kind == "path" and s.children.size:
            raise InputError("paths have no children")
        parent = np.repeat(np.arange(s.edges.size), np.diff(s.child_ptr))
        owner = np.repeat(np.arange(len(s)), np.diff(s.ptr))[parent]
        local_parent = parent - s.ptr[owner]
        if ((s.children <= local_parent) | (s.children >= np.diff(s.ptr)[owner])).any():
            raise InputError("a child index points outside its tree or before its parent")
        return s

    def edge_frequencies(self, n_edges: int) -> np.ndarray:
        """In how many structures each edge label occurs."""
        owner = np.repeat(np.arange(len(self)), np.diff(self.ptr))
        pairs = np.unique(np.stack([owner, self.edges]), axis=1)
        return np.bincount(pairs[1], minlength=n_edges)


STRUCTURE_ARRAYS = ("edges", "nodes", "ptr", "child_ptr", "children", "labels")


def _flatten_tree(tree, edges: Labels, nodes: Labels, where: str):
    """Pre-order items (edge id, node id) and each item's children as local indices."""
    items, kids = [], []
    stack = [(tree, -1)]
    while stack:
        node, parent = stack.pop()
        if not isinstance(node, dict) or "node" not in node:
            raise InputError(f"{where}: a tree node needs 'node' (and 'edge', 'children')")
        index = len(items)
        items.append((edges.id(str(node.get("edge", "root"))), nodes.id(str(node["node"]))))
        kids.append([])
        if parent >= 0:
            kids[parent].append(index)
        for child in reversed(node.get("children") or []):
            stack.append((child, index))
    return items, kids


def read_structures(path: str, edges: Labels, nodes: Labels, kind: str | None = None,
                    labels_required: bool = True, digest=None, max_items: int | None = None) -> Structures:
    """Read JSON lines of paths or trees (all of one kind); errors name the file and line.

    ``digest`` (a hashlib object) is updated with every byte read, e.g. for a model's data hash.
    ``max_items`` cuts a longer path to its first tuples, a tree to its first nodes in pre-order (a
    tree still: a node's parent comes before it), since a kernel value costs the product of the two
    lengths: one long line would otherwise cost the square of its length (and memory to match).
    """
    name = display_name(path)
    items, lengths, child_lists, labels, truncated = [], [], [], [], 0
    try:
        stream = open_input(path)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None
    with stream:
        lineno = 0
        try:
            for raw in raw_lines(stream, path):  # a line over the limit (/dev/zero) names file:line
                lineno += 1
                if digest is not None:
                    digest.update(raw)
                if not raw.strip():
                    continue
                where = f"{name}:{lineno}"
                try:
                    record = json.loads(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    raise InputError(f"{where}: invalid UTF-8") from None
                except json.JSONDecodeError as exc:
                    raise InputError(f"{where}: not JSON ({exc.msg})") from None
                except RecursionError:
                    raise InputError(f"{where}: JSON nested too deeply") from None
                if not isinstance(record, dict):
                    raise InputError(f"{where}: expected a JSON object")
                this_kind = "tree" if "tree" in record else "path" if "tuples" in record else None
                if this_kind is None:
                    raise InputError(f"{where}: needs 'tuples' (a path) or 'tree'")
                kind = kind or this_kind
                if this_kind != kind:
                    raise InputError(f"{where}: a {this_kind} among {kind}s; one kind per file")
                label = record.get("label")
                if label in (None, "?"):
                    if labels_required:
                        raise InputError(f"{where}: missing 'label' (1 or 0)")
                    label = -1
                elif label not in (0, 1, True, False):
                    raise InputError(f"{where}: label must be 1 or 0, got {label!r}")
                labels.append(int(label))
                if kind == "path":
                    tuples = record["tuples"]
                    if not isinstance(tuples, list) or any(not isinstance(t, list) or len(t) != 2 for t in tuples):
                        raise InputError(f"{where}: 'tuples' must be a list of [edge, node] pairs")
                    truncated += max_items is not None and len(tuples) > max_items
                    tuples = tuples[:max_items]
                    items.extend((edges.id(str(e)), nodes.id(str(n))) for e, n in tuples)
                    lengths.append(len(tuples))
                else:
                    tree_items, kids = _flatten_tree(record["tree"], edges, nodes, where)
                    if max_items is not None and len(tree_items) > max_items:
                        truncated += 1
                        tree_items = tree_items[:max_items]
                        kids = [[c for c in k if c < max_items] for k in kids[:max_items]]
                    items.extend(tree_items)
                    child_lists.extend(kids)
                    lengths.append(len(tree_items))
        except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            raise InputError(f"{name}:{lineno + 1}: truncated or corrupt input ({exc})") from None
    if not lengths:
        raise InputError(f"{name}: no structures")
    flat = np.array(items, np.int64).reshape(-1, 2)
    ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    if kind == "tree":
        child_ptr = np.r_[0, np.cumsum([len(k) for k in child_lists])].astype(np.int64)
        children = np.array([c for k in child_lists for c in k], np.int64)
    else:
        child_ptr, children = np.zeros(flat.shape[0] + 1, np.int64), np.zeros(0, np.int64)
    return Structures(kind, flat[:, 0].copy(), flat[:, 1].copy(), ptr, child_ptr, children, np.array(labels, np.int64),
                      truncated)
