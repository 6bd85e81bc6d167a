/**
 * One tool call's transaction over a trial's world, at a cost independent of the
 * size of the tables it touches.
 *
 * The tool sees the world through write-tracking proxies that never copy on read.
 * A write copies, once per trial, each frozen object on the path from the root to
 * what it changes; a big object (a table) is not copied but overlaid: a proxy that
 * reads through to the frozen table and holds only the changed keys. Objects the
 * trial owns are changed in place with an undo log, so a failed call is rolled back
 * and a committed call costs nothing more.
 *
 * Between calls the trial's world may hold owned, unfrozen objects; {@linkcode seal}
 * freezes it (and turns each overlay into a plain frozen object that shares every
 * untouched record) when a consumer looks. The frozen shared base is never written.
 *
 * @module
 */
import { setReadView } from "../domains/domain.ts";

/** Objects with more own keys than this are overlaid instead of copied on write. */
const OVERLAY_ABOVE = 64;

const DELETED: unique symbol = Symbol("deleted");
const NODE: unique symbol = Symbol("node");

/** Frozen objects known to have more than {@linkcode OVERLAY_ABOVE} own keys. */
const big = new WeakSet<object>();

/**
 * Objects known to be frozen. `Object.isFrozen` walks every property of a
 * dictionary-mode object (a big table): 32 µs at 16,000 keys.
 */
const frozen = new WeakSet<object>();

/** `Object.isFrozen`, answered from {@linkcode frozen} when known. */
function _isFrozen(o: object): boolean {
  if (frozen.has(o)) return true;
  if (!Object.isFrozen(o)) return false;
  frozen.add(o);
  return true;
}

type Key = string | symbol;
type Obj = Record<Key, unknown>;

/** A big frozen object with some keys changed, read through a proxy. */
class Overlay {
  readonly base: Obj;
  /** Changed keys, in the order a plain object would list the added ones. */
  changes = new Map<Key, unknown>();
  /** Keys of `base` deleted and then set again: a plain object lists them last. */
  readded = new Set<Key>();
  readonly proxy: Obj;

  constructor(base: Obj) {
    this.base = base;
    this.proxy = new Proxy({} as Obj, overlayHandler(this));
    overlays.set(this.proxy, this);
  }

  has(key: Key): boolean {
    if (this.changes.has(key)) return this.changes.get(key) !== DELETED;
    return Object.hasOwn(this.base, key);
  }

  get(key: Key): unknown {
    if (this.changes.has(key)) {
      const v = this.changes.get(key);
      return v === DELETED ? undefined : v;
    }
    return this.base[key];
  }

  set(key: Key, value: unknown): void {
    if (this.changes.get(key) === DELETED) {
      this.changes.delete(key);
      this.readded.add(key);
    }
    this.changes.set(key, value);
  }

  delete(key: Key): void {
    if (!this.has(key)) return;
    if (Object.hasOwn(this.base, key)) {
      this.readded.delete(key);
      this.changes.delete(key);
      this.changes.set(key, DELETED);
    } else {
      this.changes.delete(key);
    }
  }

  /** Own keys in the order a plain object with the same history lists them. */
  keys(): Key[] {
    const { base, changes, readded } = this;
    const keys: Key[] = [];
    for (const k of Reflect.ownKeys(base)) {
      if (!readded.has(k) && changes.get(k) !== DELETED) keys.push(k);
    }
    let indexAdded = false;
    for (const [k, v] of changes) {
      if (v === DELETED || (Object.hasOwn(base, k) && !readded.has(k))) continue;
      keys.push(k);
      indexAdded ||= _isIndex(k);
    }
    if (!indexAdded) return keys;
    const indices = keys.filter(_isIndex).sort((a, b) => Number(a) - Number(b));
    return [...indices, ...keys.filter((k) => !_isIndex(k))];
  }

  snapshot(): () => void {
    const changes = new Map(this.changes);
    const readded = new Set(this.readded);
    return () => {
      this.changes = changes;
      this.readded = readded;
    };
  }

  /** A plain frozen object with these contents; unchanged values are shared. */
  materialize(sealValue: (v: unknown) => unknown): Obj {
    // A for-in copy: half the time of a spread on a dictionary-mode table.
    const { base } = this;
    const out: Obj = {};
    for (const k in base) out[k] = base[k];
    for (const k of this.readded) delete out[k];
    for (const [k, v] of this.changes) {
      if (v === DELETED) delete out[k];
      else out[k] = sealValue(v);
    }
    Object.freeze(out);
    frozen.add(out);
    big.add(out);
    return out;
  }
}

const overlays = new WeakMap<object, Overlay>();

function overlayHandler(o: Overlay): ProxyHandler<Obj> {
  return {
    get(_t, k) {
      if (!o.changes.has(k)) return Reflect.get(o.base, k);
      const v = o.changes.get(k);
      return v === DELETED ? Reflect.get(Object.prototype, k) : v;
    },
    has: (_t, k) => o.has(k) || (!o.changes.has(k) && k in o.base),
    ownKeys: () => o.keys(),
    getOwnPropertyDescriptor: (_t, k) =>
      o.has(k)
        ? { value: o.get(k), writable: true, enumerable: true, configurable: true }
        : undefined,
    set: (_t, k, v) => {
      o.set(k, v);
      return true;
    },
    deleteProperty: (_t, k) => {
      o.delete(k);
      return true;
    },
    defineProperty: (_t, k, d) => {
      if (!("value" in d)) return false;
      o.set(k, d.value);
      return true;
    },
    preventExtensions: () => false,
  };
}

function _isIndex(k: Key): boolean {
  return typeof k === "string" && /^(0|[1-9]\d*)$/.test(k) && Number(k) < 4294967295;
}

/** A place in the world a tool reached: the object there now and how it got there. */
interface Node {
  value: Obj;
  readonly parent: Node | undefined;
  readonly key: Key;
  kids: Map<Key, Node> | undefined;
  readonly proxy: Obj;
  readonly tx: Transaction;
}

const nodes = new WeakMap<object, Node>();

const draftHandler: ProxyHandler<Obj> = {
  get(t, k) {
    const n = t[NODE] as Node;
    const v = Reflect.get(n.value, k);
    if (typeof v !== "object" || v === null || nodes.has(v) || !Object.hasOwn(n.value, k)) {
      return v;
    }
    return n.tx.child(n, k, v as Obj).proxy;
  },
  has: (t, k) => Reflect.has((t[NODE] as Node).value, k),
  ownKeys: (t) => Reflect.ownKeys((t[NODE] as Node).value),
  getOwnPropertyDescriptor(t, k) {
    const n = t[NODE] as Node;
    const d = Reflect.getOwnPropertyDescriptor(n.value, k);
    if (!d) return undefined;
    if (Array.isArray(n.value) && k === "length") {
      return { value: d.value, writable: true, enumerable: false, configurable: false };
    }
    return {
      value: draftHandler.get!(t, k, t),
      writable: true,
      enumerable: d.enumerable,
      configurable: true,
    };
  },
  set(t, k, v) {
    const n = t[NODE] as Node;
    n.tx.write(n, k, v);
    return true;
  },
  deleteProperty(t, k) {
    const n = t[NODE] as Node;
    n.tx.remove(n, k);
    return true;
  },
  defineProperty(t, k, d) {
    if (!("value" in d)) return false;
    const n = t[NODE] as Node;
    n.tx.write(n, k, d.value);
    return true;
  },
  preventExtensions: () => false,
};

/**
 * One call's changes to a world. Read and write through {@linkcode draft}; then
 * {@linkcode commit} (the new root) or {@linkcode rollback} (everything as before).
 */
export class Transaction {
  readonly #root: Node;
  readonly #undo: (() => void)[] = [];
  /** Copies made in this transaction: dropped on rollback, so never logged. */
  readonly #fresh = new WeakSet<object>();
  /** Owned objects whose whole contents this transaction already saved. */
  readonly #saved = new WeakSet<object>();
  /** Where a tool put an object of its own (proxies inside are replaced on commit). */
  readonly #placed: [Obj, Key][] = [];
  #changed = false;

  constructor(root: object) {
    this.#root = this.#node(root as Obj, undefined, "");
  }

  /** The world as the tool sees and changes it. */
  get draft(): Obj {
    return this.#root.proxy;
  }

  /** Whether anything was written. */
  get changed(): boolean {
    return this.#changed;
  }

  /** The world with this call's changes (may hold owned, unfrozen objects). */
  commit(): object {
    for (const [obj, key] of this.#placed) {
      const v = obj[key];
      if (typeof v === "object" && v !== null) {
        const u = _unwrap(v);
        if (u !== v) obj[key] = u;
      }
    }
    return this.#root.value;
  }

  /** Puts every owned object back as it was; the world is the one given. */
  rollback(): void {
    for (let i = this.#undo.length - 1; i >= 0; i--) this.#undo[i]!();
    this.#undo.length = 0;
  }

  /** @internal The node for `parent[key]`, holding `value`. */
  child(parent: Node, key: Key, value: Obj): Node {
    const kids = parent.kids ??= new Map();
    const known = kids.get(key);
    if (known && known.value === value) return known;
    const n = this.#node(value, parent, key);
    kids.set(key, n);
    return n;
  }

  /** @internal `node[key] = value`, as a tool wrote it. */
  write(node: Node, key: Key, value: unknown): void {
    const target = this.#own(node);
    const v = typeof value === "object" && value !== null ? _unwrap(value) : value;
    this.#set(target, key, v);
    if (typeof v === "object" && v !== null && !_isFrozen(v)) {
      this.#placed.push([target, key]);
    }
  }

  /** @internal `delete node[key]`, as a tool wrote it. */
  remove(node: Node, key: Key): void {
    const target = this.#own(node);
    if (!Object.hasOwn(target, key)) return;
    this.#save(target, true);
    this.#changed = true;
    delete target[key];
  }

  #node(value: Obj, parent: Node | undefined, key: Key): Node {
    const dummy = (Array.isArray(value) ? [] : {}) as unknown as Obj;
    const proxy = new Proxy(dummy, draftHandler);
    const n: Node = { value, parent, key, kids: undefined, proxy, tx: this };
    dummy[NODE] = n;
    nodes.set(proxy, n);
    return n;
  }

  /** The object at `node`, made the trial's own (copied or overlaid) if frozen. */
  #own(node: Node): Obj {
    const { value } = node;
    if (!_isFrozen(value)) return value;
    const copy = _copyOf(value);
    this.#fresh.add(copy);
    if (node.parent) {
      const parent = this.#own(node.parent);
      if (parent[node.key] !== value) {
        throw new Error(`a tool wrote through a reference the world no longer holds`);
      }
      this.#set(parent, node.key, copy);
    } else {
      this.#undo.push(() => node.value = value);
      this.#changed = true;
    }
    node.value = copy;
    return copy;
  }

  #set(target: Obj, key: Key, value: unknown): void {
    this.#changed = true;
    if (!this.#fresh.has(target)) {
      const overlay = overlays.get(target);
      if (overlay) {
        if (!this.#saved.has(target)) {
          this.#saved.add(target);
          this.#undo.push(overlay.snapshot());
        }
      } else if (Array.isArray(target)) {
        this.#save(target, false);
      } else if (!this.#saved.has(target)) {
        const had = Object.hasOwn(target, key);
        const old = target[key];
        this.#undo.push(had ? () => target[key] = old : () => delete target[key]);
      }
    }
    target[key] = value;
  }

  /** Logs the whole of an owned object once (arrays, and objects losing a key). */
  #save(target: Obj, deleting: boolean): void {
    if (this.#fresh.has(target) || this.#saved.has(target)) return;
    const overlay = overlays.get(target);
    if (overlay) {
      this.#saved.add(target);
      this.#undo.push(overlay.snapshot());
      return;
    }
    if (!deleting && !Array.isArray(target)) return;
    this.#saved.add(target);
    if (Array.isArray(target)) {
      const items = target.slice();
      this.#undo.push(() => {
        target.length = 0;
        for (let i = 0; i < items.length; i++) target[i] = items[i];
      });
    } else {
      const entries = Object.entries(target);
      this.#undo.push(() => {
        for (const k of Object.keys(target)) delete target[k];
        for (const [k, v] of entries) target[k] = v;
      });
    }
  }
}

/** A shallow copy of a frozen object, or an overlay of a big one. */
function _copyOf(value: Obj): Obj {
  if (Array.isArray(value)) return value.slice() as unknown as Obj;
  if (big.has(value)) return new Overlay(value).proxy;
  if (Object.keys(value).length > OVERLAY_ABOVE) {
    big.add(value);
    return new Overlay(value).proxy;
  }
  return { ...value };
}

/** `value` with every draft proxy in it replaced by the object it stands for. */
function _unwrap(value: object): object {
  const n = nodes.get(value);
  if (n) return n.value;
  if (_isFrozen(value) || overlays.has(value)) return value;
  const o = value as Obj;
  for (const k of Object.keys(o)) {
    const v = o[k];
    if (typeof v === "object" && v !== null) {
      const u = _unwrap(v);
      if (u !== v) o[k] = u;
    }
  }
  return value;
}

/**
 * The object a draft proxy stands for now, for tools that only read (walking it
 * skips the proxies); anything else as given. Never write to what it returns.
 */
export function current<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  return (nodes.get(value)?.value ?? value) as T;
}

// Read-only tools see through this module's proxies (src/domains/domain.ts).
setReadView(current);

/**
 * Freezes a world a transaction committed, every owned object in it, overlays made
 * plain; frozen parts are kept as they are (same identity), so their cached
 * canonical text is reused.
 */
export function seal<T>(value: T): T {
  return _seal(value) as T;
}

function _seal(value: unknown): unknown {
  if (typeof value !== "object" || value === null || _isFrozen(value)) return value;
  const overlay = overlays.get(value);
  if (overlay) return overlay.materialize(_seal);
  const o = value as Obj;
  for (const k of Object.keys(o)) {
    const v = o[k];
    const s = _seal(v);
    if (s !== v) o[k] = s;
  }
  Object.freeze(o);
  frozen.add(o);
  return o;
}
