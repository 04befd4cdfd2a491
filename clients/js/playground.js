import { Layoutd, LayoutdError } from "./client.js";

const SAMPLE = {
  views: {
    root: { frame: { width: 375, height: 520 } },
    header: { parent: "root" },
    avatar: { parent: "header", frame: { width: 32, height: 32 } },
    title: { parent: "header", intrinsicSize: { width: 140, height: 22 } },
    content: { parent: "root", kind: "guide" },
    banner: { parent: "root", intrinsicSize: { height: 64 } },
    card: { parent: "root" },
    footer: { parent: "root" }
  },
  constraints: {
    "header-top": "header.top == root.top",
    "header-sides": "header.horizontal == root.horizontal",
    "header-height": "header.height == 56",
    "avatar-leading": "avatar.leading == header.leading + 12",
    "avatar-y": "avatar.centerY == header.centerY",
    "title-leading": "title.leading == avatar.trailing + 10",
    "title-y": "title.centerY == header.centerY",
    "content-sides": "content.horizontal == root.horizontal + 16",
    "content-top": "content.top == header.bottom + 12",
    "content-bottom": "content.bottom == footer.top - 12",
    "banner-top": "banner.top == content.top",
    "banner-sides": "banner.horizontal == content.horizontal",
    "banner-collapse": { expr: "banner.height == 0", activation: "firstInvisible" },
    "card-top": "card.top == banner.bottom + 12",
    "card-sides": "card.horizontal == content.horizontal",
    "card-bottom": "card.bottom == content.bottom",
    "footer-sides": "footer.horizontal == root.horizontal",
    "footer-bottom": "footer.bottom == root.bottom",
    "footer-height": "footer.height == 48"
  }
};

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
// The API key lives in this tab's sessionStorage only: never in the URL, its hash or a link, where it
// would reach history, logs and Referer headers. Links that must work without the header (render.svg)
// carry a short-lived token of the session instead.
const KEY_STORAGE = "layoutd.apiKey";
const api = new Layoutd("", { coordinates: "absolute", apiKey: storedKey() });
function storedKey() {
  try { return sessionStorage.getItem(KEY_STORAGE) || undefined; } catch { return undefined; }
}

// Everything the page knows. `frames` are absolute, at `revision`; `doc` is the canonical document
// at `docRevision` (it may lag behind `revision` for a moment after another tab's edit).
const state = {
  sessionId: null, exists: false, revision: 0, doc: null, docRevision: 0,
  frames: new Map(), diagnostics: { broken: [], ambiguous: [], inactive: [] },
  dirty: false, unsubscribe: null, errors: [],
  stats: { sseEvents: 0, opens: 0, patches: 0, puts: 0, draws: 0, refreshes: 0, solves: 0, explains: 0 },
};
// Without a session (`sessionId` null) the page solves with POST /v1/solve and stores nothing: a visit
// costs the server no session. "Share" makes one (PUT under a new id, `#id` in the URL); a visit with
// `#id` opens that session, as the page always did.
const shared = () => state.sessionId !== null;

// ---- small helpers ----

function pretty(doc) { return JSON.stringify(doc, null, 2) + "\n"; }
function randomID() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
function log(text) {
  const li = document.createElement("li");
  li.textContent = new Date().toLocaleTimeString() + "  " + text;
  $("log").prepend(li);
  while ($("log").children.length > 60) $("log").lastChild.remove();
}
function mergePatch(target, patch) {  // RFC 7396
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const out = (target && typeof target === "object" && !Array.isArray(target)) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]; else out[k] = mergePatch(out[k], v);
  }
  return out;
}
function viewsOf(doc) {  // [{id, parent, kind, hidden, alpha, frame}] in document order
  const views = doc && doc.views;
  if (!views) return [];
  if (Array.isArray(views)) return views.filter((v) => v && typeof v.id === "string").map((v) => ({ ...v }));
  return Object.entries(views).map(([id, v]) => ({ ...(v || {}), id }));
}
function rootOf(doc) { return viewsOf(doc).find((v) => !v.parent); }

// ---- JSON pointers → text ranges (for errors) ----

// Parses `text` into a tree of {start, end, keyStart, children} so that a JSON pointer can be mapped
// to the place the user typed. Array elements are also reachable by their "id" (and "#<index>"), as the
// server's pointers name entries of the canonical, keyed form.
function locate(text) {
  let i = 0;
  const ws = () => { while (i < text.length && " \t\r\n".includes(text[i])) i++; };
  const string = () => {
    const s = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    try { return JSON.parse(text.slice(s, i)); } catch { return text.slice(s + 1, i - 1); }
  };
  const value = () => {
    ws();
    const node = { start: i, end: i, children: new Map() };
    const c = text[i];
    if (c === "{") {
      i++; ws();
      while (i < text.length && text[i] !== "}") {
        ws();
        if (text[i] !== '"') throw new Error("key");
        const keyStart = i, key = string();
        ws(); if (text[i] !== ":") throw new Error("colon"); i++;
        const child = value(); child.keyStart = keyStart;
        node.children.set(key, child);
        ws(); if (text[i] === ",") i++; else break;
      }
      i++;
    } else if (c === "[") {
      i++; ws();
      let index = 0;
      while (i < text.length && text[i] !== "]") {
        const child = value();
        node.children.set(String(index), child);
        const idNode = child.children.get("id");
        if (idNode) {
          try { const id = JSON.parse(text.slice(idNode.start, idNode.end)); if (typeof id === "string") node.children.set(id, child); } catch {}
        }
        if (!node.children.has("#" + index)) node.children.set("#" + index, child);
        index++;
        ws(); if (text[i] === ",") i++; else break;
      }
      i++;
    } else if (c === '"') {
      string();
    } else {
      while (i < text.length && !",]} \t\r\n".includes(text[i])) i++;
    }
    node.end = Math.min(i, text.length);
    return node;
  };
  let root = null;
  try { root = value(); } catch { root = null; }
  return (pointer) => {
    if (!root) return null;
    let node = root, exact = true;
    const parts = pointer === "" ? [] : pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    for (const p of parts) {
      const next = node.children.get(p);
      if (!next) { exact = false; break; }
      node = next;
    }
    return { start: node.keyStart !== undefined ? node.keyStart : node.start, end: node.end, exact };
  };
}
function offsetOf(text, line, column) {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}
function lineColumn(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

// ---- errors next to the editor ----

function showErrors(error, source) {
  const text = $("editor").value;
  const box = $("errors");
  box.textContent = "";
  state.errors = [];
  if (!error) { renderBackdrop(); return; }
  const problem = error instanceof LayoutdError ? error.problem : { title: String(error), errors: [] };
  const find = source === "editor" ? locate(text) : () => null;
  const items = [];
  if (typeof problem.line === "number" && source === "editor") {
    const at = offsetOf(text, problem.line, problem.column || 1);
    items.push({ pointer: "", code: "invalid_json", detail: problem.detail, start: at, end: Math.min(text.length, at + 1) });
  } else {
    for (const e of (problem.errors || [])) {
      const range = e.pointer !== undefined ? find(e.pointer) : null;
      items.push({ ...e, start: range ? range.start : undefined, end: range ? range.end : undefined });
    }
  }
  state.errors = items;
  const summary = document.createElement("div");
  summary.className = "summary";
  summary.textContent = `${error.status ? error.status + " " : ""}${problem.title || "Error"}: ${problem.detail || ""}`;
  box.append(summary);
  const ul = document.createElement("ul");
  for (const item of items) {
    const li = document.createElement("li");
    const where = item.start !== undefined ? lineColumn(text, item.start) : null;
    li.innerHTML = "<code></code> <span class=detail></span> <span class=where></span>";
    li.querySelector("code").textContent = item.pointer || "(document)";
    li.querySelector(".detail").textContent = item.detail || "";
    li.querySelector(".where").textContent = (where ? `line ${where.line}, column ${where.column}` : "") + (item.code ? ` · ${item.code}` : "");
    if (item.start !== undefined) {
      li.dataset.start = item.start;
      li.addEventListener("click", () => {
        const ed = $("editor");
        ed.focus();
        ed.setSelectionRange(item.start, item.end);
        const line = lineColumn(text, item.start).line;
        ed.scrollTop = Math.max(0, (line - 4) * 18.75);
      });
    }
    ul.append(li);
  }
  box.append(ul);
  renderBackdrop();
}
function renderBackdrop() {
  const text = $("editor").value;
  const back = $("backdrop");
  back.textContent = "";
  const ranges = state.errors.filter((e) => e.start !== undefined).map((e) => [e.start, Math.max(e.end, e.start + 1)])
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue;
    back.append(text.slice(at, s));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(s, e) || " ";
    back.append(mark);
    at = e;
  }
  back.append(text.slice(at) + "\n\n");
  back.scrollTop = $("editor").scrollTop;
  back.scrollLeft = $("editor").scrollLeft;
}

// ---- drawing ----

function brokenViewIDs() {
  const ids = new Set(viewsOf(state.doc).map((v) => v.id));
  for (const id of state.frames.keys()) ids.add(id);
  const constraints = (state.doc && state.doc.constraints) || {};
  const entries = Array.isArray(constraints) ? Object.fromEntries(constraints.map((c, i) => [c && c.id || "#" + i, c])) : constraints;
  const out = new Set();
  for (const b of state.diagnostics.broken || []) {
    const entry = entries[b.id];
    if (entry === undefined) {
      const view = b.id.split(".")[0];
      if (ids.has(view)) out.add(view);
      continue;
    }
    if (entry && Array.isArray(entry.views) && !entry.first && !entry.expr) {
      entry.views.forEach((v) => ids.has(v) && out.add(v));
      continue;
    }
    const text = typeof entry === "string" ? entry : String(entry.first || entry.expr || entry.format || "");
    const names = text.match(/[A-Za-z0-9_#-]+/g) || [];
    const first = names.find((n) => ids.has(n));
    if (first) out.add(first);
  }
  return out;
}

function draw() {
  state.stats.draws++;
  const svg = $("drawing");
  svg.textContent = "";
  const known = viewsOf(state.doc);
  const byID = new Map(known.map((v) => [v.id, v]));
  for (const id of state.frames.keys()) if (!byID.has(id)) byID.set(id, { id });
  const children = new Map(), roots = [];
  for (const v of byID.values()) {
    if (v.parent && byID.has(v.parent) && v.parent !== v.id) {
      if (!children.has(v.parent)) children.set(v.parent, []);
      children.get(v.parent).push(v);
    } else roots.push(v);
  }
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of roots) {
    const f = state.frames.get(r.id);
    if (!f) continue;
    minX = Math.min(minX, f.x); minY = Math.min(minY, f.y);
    maxX = Math.max(maxX, f.x + f.width); maxY = Math.max(maxY, f.y + f.height);
  }
  if (!isFinite(minX)) { minX = minY = 0; maxX = maxY = 100; }
  const m = 12;
  const w = Math.max(1, maxX - minX) + 2 * m, h = Math.max(1, maxY - minY) + 2 * m;
  svg.setAttribute("viewBox", `${minX - m} ${minY - m} ${w} ${h}`);
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  const defs = document.createElementNS(SVG_NS, "defs");
  defs.innerHTML = '<pattern id="pg-hatch" patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)">' +
    '<line x1="0" y1="0" x2="0" y2="8" stroke="#ef6c00" stroke-width="3" stroke-opacity="0.7"/></pattern>';
  svg.append(defs);
  const fills = ["#e3f2fd", "#e8f5e9", "#fff8e1", "#f3e5f5", "#e0f7fa", "#fbe9e7"];
  const broken = brokenViewIDs(), ambiguous = new Set(state.diagnostics.ambiguous || []);
  const boxes = document.createElementNS(SVG_NS, "g"), labels = document.createElementNS(SVG_NS, "g");
  const seen = new Set();
  const visit = (v, depth, parentVisible, into) => {
    if (seen.has(v.id)) return;
    seen.add(v.id);
    const guide = v.kind === "guide";
    const visible = parentVisible && (guide || (!v.hidden && (v.alpha === undefined || v.alpha > 0)));
    const group = document.createElementNS(SVG_NS, "g");
    group.dataset.id = v.id;
    const f = state.frames.get(v.id);
    if (f) {
      const rect = document.createElementNS(SVG_NS, "rect");
      const cls = ["box"];
      if (guide) cls.push("guide");
      if (!visible) cls.push("hidden");
      if (broken.has(v.id)) cls.push("broken");
      if (ambiguous.has(v.id)) cls.push("ambiguous");
      rect.setAttribute("class", cls.join(" "));
      rect.dataset.id = v.id;
      rect.setAttribute("x", f.x); rect.setAttribute("y", f.y);
      rect.setAttribute("width", Math.abs(f.width)); rect.setAttribute("height", Math.abs(f.height));
      if (!guide) rect.setAttribute("fill", fills[depth % fills.length]);
      const title = document.createElementNS(SVG_NS, "title");
      title.textContent = `${v.id}  x ${f.x}  y ${f.y}  ${f.width} × ${f.height}`;
      rect.append(title);
      group.append(rect);
      if (ambiguous.has(v.id)) {
        const hatch = document.createElementNS(SVG_NS, "rect");
        hatch.setAttribute("class", "hatch");
        for (const k of ["x", "y", "width", "height"]) hatch.setAttribute(k, rect.getAttribute(k));
        group.append(hatch);
      }
      const label = document.createElementNS(SVG_NS, "text");
      label.setAttribute("x", f.x + 4); label.setAttribute("y", f.y + 13);
      label.setAttribute("class", [!visible && "hidden", broken.has(v.id) && "broken"].filter(Boolean).join(" "));
      label.textContent = v.id;
      labels.append(label);
    }
    into.append(group);
    for (const c of children.get(v.id) || []) visit(c, depth + 1, visible, group);
  };
  for (const r of roots) visit(r, 0, true, boxes);
  svg.append(boxes, labels);
  renderDiagnostics();
  renderControls();
}

function renderDiagnostics() {
  const d = state.diagnostics;
  const fill = (listID, countID, items, render) => {
    const ul = $(listID);
    ul.textContent = "";
    $(countID).textContent = items.length;
    if (!items.length) { const li = document.createElement("li"); li.className = "none"; li.textContent = "none"; ul.append(li); }
    for (const item of items.slice(0, 200)) { const li = document.createElement("li"); render(li, item); ul.append(li); }
  };
  fill("brokenList", "brokenCount", d.broken || [], (li, b) => {
    li.innerHTML = "<code></code><span></span>";
    li.firstChild.textContent = b.id;
    li.lastChild.textContent = b.conflictsWith && b.conflictsWith.length ? " conflicts with " + b.conflictsWith.join(", ") : "";
  });
  fill("ambiguousList", "ambiguousCount", d.ambiguous || [], (li, id) => { li.innerHTML = "<code></code>"; li.firstChild.textContent = id; });
  fill("inactiveList", "inactiveCount", d.inactive || [], (li, id) => { li.innerHTML = "<code></code>"; li.firstChild.textContent = id; });
}

// Sliders follow the first root's frame; toggles follow the document's `hidden` fields.
function renderControls() {
  const root = rootOf(state.doc);
  const f = root && state.frames.get(root.id);
  for (const [dim, slider, out] of [["width", "widthSlider", "widthOut"], ["height", "heightSlider", "heightOut"]]) {
    const s = $(slider);
    s.disabled = (shared() && !state.exists) || !f;
    if (f && !dragging && !pendingSize && !sizeInFlight) {
      s.max = Math.max(1600, Math.ceil(f[dim] * 2));
      s.value = f[dim];
    }
    $(out).textContent = f ? +f[dim].toFixed(2) : "–";
  }
  const box = $("visibility");
  const views = viewsOf(state.doc).filter((v) => v.parent && v.kind !== "guide");
  const enabled = shared() ? state.exists : !!state.doc;
  const key = views.map((v) => v.id + ":" + !!v.hidden).join(",") + enabled;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.textContent = "";
  for (const v of views) {
    const label = document.createElement("label");
    label.className = v.hidden ? "off" : "";
    const input = document.createElement("input");
    input.type = "checkbox";
    input.checked = !v.hidden;
    input.disabled = !enabled;
    input.dataset.id = v.id;
    input.addEventListener("change", () => setHidden(v.id, !input.checked));
    label.append(input, document.createTextNode(v.id));
    box.append(label);
  }
}

function renderHeader() {
  $("sessionLabel").textContent = state.sessionId ? state.sessionId : "not shared";
  $("sessionLabel").title = state.sessionId ? "session id (also in the URL hash)"
    : "solved with POST /v1/solve: nothing is stored until you press Share";
  $("revisionLabel").textContent = state.exists ? "rev " + state.revision : "rev –";
  renderSvgLink();
  $("solveButton").textContent = !shared() || state.exists ? "Solve" : "Solve (create session)";
  $("shareButton").textContent = shared() ? "Copy link" : "Share";
  $("shareButton").title = shared() ? "Copy this page's address (it names the session)"
    : "Store the document as a session and put its id in the URL, to share it";
  $("editorNote").textContent = state.dirty ? "edited: Solve to apply" : "";
}

// With a key, the render.svg link carries a token of the session (it expires: fetched again when it is
// more than half way there); without one, the plain URL.
let svgToken = null;  // {sessionId, token, renewAt}
function renderSvgLink() {
  const link = $("svgLink");
  link.hidden = !state.sessionId;
  if (!state.sessionId) { link.href = "#"; return; }
  if (!api.apiKey) { link.href = api.renderURL(state.sessionId); return; }
  const fresh = svgToken && svgToken.sessionId === state.sessionId && Date.now() < svgToken.renewAt;
  link.href = fresh ? api.renderURL(state.sessionId, svgToken.token) : "#";
  if (!fresh && state.exists) renewSvgToken();
}
let svgTokenPending = null;
function renewSvgToken() {
  const id = state.sessionId;
  if (!svgTokenPending) {
    svgTokenPending = api.streamToken(id).then((t) => {
      svgToken = { sessionId: id, token: t.token, renewAt: Date.now() + (t.expiresIn || 60) * 500 };
    }).catch((e) => { svgToken = null; handleFailure(e, "token"); })
      .finally(() => { svgTokenPending = null; if (id === state.sessionId && svgToken) renderSvgLink(); });
  }
  return svgTokenPending;
}

// ---- the API key ----

function needKey(error) {
  const field = $("apiKey");
  field.classList.add("needed");
  $("banner").textContent = api.apiKey
    ? `The server does not take this API key (${error.status}): paste another one in the key field above.`
    : `This server needs an API key (${error.status}): paste one in the key field above (kept in this tab only).`;
  $("banner").className = "show";
  setLive("off");
  field.focus();
}
function setKey(value) {
  const key = value.trim() || undefined;
  try {
    if (key) sessionStorage.setItem(KEY_STORAGE, key); else sessionStorage.removeItem(KEY_STORAGE);
  } catch { /* storage refused: the key still works until the page is left */ }
  api.apiKey = key;
  svgToken = null;
  $("apiKey").classList.remove("needed");
  $("banner").className = "";
  log(key ? "API key set (this tab only)" : "API key cleared");
  // Everything again with the new key: the session (created when it is missing) and its stream, or
  // the unshared document.
  if (state.sessionId) return loadSession();
  return solveLocal();
}

// ---- applying answers ----

// A snapshot (all frames) or a delta (changed frames, removed ids) at `revision`. Deltas apply only on top
// of the revision before them; a gap means something was missed, so the frames are fetched again.
function applyResult(result, { all = false } = {}) {
  if (!result || typeof result.revision !== "number") return;
  const isAll = all || result.all === true;
  if (isAll ? result.revision < state.revision : result.revision <= state.revision) return;
  if (!isAll && result.revision > state.revision + 1) { refresh(); return; }
  if (isAll) state.frames = new Map();
  for (const [id, f] of Object.entries(result.frames || {})) state.frames.set(id, f);
  for (const id of result.removed || []) state.frames.delete(id);
  state.revision = result.revision;
  if (result.diagnostics) state.diagnostics = result.diagnostics;
  renderHeader();
  draw();
  if (state.docRevision < state.revision) refreshDocumentSoon();
}

let docTimer = null;
function refreshDocumentSoon() {
  clearTimeout(docTimer);
  docTimer = setTimeout(refreshDocument, 120);
}
async function refreshDocument() {
  if (!state.sessionId || !state.exists) return;
  try {
    const s = await api.getSession(state.sessionId);
    setDocument(s.document, s.revision);
    applyResult(s, { all: true });
    draw();
    if (state.docRevision < state.revision) refreshDocumentSoon();
  } catch (e) { handleFailure(e, "refresh"); }
}
async function refresh() {  // frames and document after a gap
  state.stats.refreshes++;
  if (!state.sessionId) return;
  try {
    const s = await api.getSession(state.sessionId);
    state.revision = 0;
    setDocument(s.document, s.revision);
    applyResult(s, { all: true });
  } catch (e) { handleFailure(e, "refresh"); }
}
function setDocument(doc, revision) {
  if (revision < state.docRevision) return;
  state.doc = doc;
  state.docRevision = revision;
  if (!state.dirty) {
    const ed = $("editor");
    const top = ed.scrollTop;
    ed.value = pretty(doc);
    ed.scrollTop = top;
    showErrors(null);
  }
}
function handleFailure(error, source) {
  if (error instanceof LayoutdError && error.status === 401) { needKey(error); log(`${source}: ${error.message}`); return; }
  if (error instanceof LayoutdError && error.status === 404 && error.type === "/problems/session-not-found") {
    sessionGone("not found");
    return;
  }
  showErrors(error, source);
  log(`${source}: ${error.message}`);
}
function sessionGone(reason) {
  state.exists = false;
  if (state.unsubscribe) { state.unsubscribe(); state.unsubscribe = null; }
  setLive("off");
  $("banner").textContent = `Session ${state.sessionId} is ${reason}. Solve creates it again from the editor.`;
  $("banner").className = "show";
  renderHeader();
  renderControls();
}
function setLive(s) {
  $("live").className = s;
  $("live").textContent = s === "on" ? "live" : s === "off" ? "offline" : "connecting";
}

// ---- actions ----

function editorDocument() {
  const text = $("editor").value;
  try { return { text, doc: JSON.parse(text) }; } catch { return { text, doc: undefined }; }
}

// ---- without a session: POST /v1/solve ----

// Shows a solve's answer (absolute frames) for `doc`, the document it was solved from.
function showSolved(doc, result) {
  state.doc = doc;
  state.frames = new Map(Object.entries(result.frames || {}));
  state.diagnostics = result.diagnostics || { broken: [], ambiguous: [], inactive: [] };
  renderHeader();
  draw();
}
async function solveLocal() {
  const { text, doc } = editorDocument();
  state.stats.solves++;
  try {
    const r = await api.solve(text);
    if (shared()) return;  // shared meanwhile: the session's answers rule now
    showErrors(null);
    state.dirty = $("editor").value !== text;
    $("banner").className = "";
    showSolved(doc, r);
  } catch (e) {
    handleFailure(e, "editor");
  }
}
// A slider or a toggle without a session: the document changes here, in the editor too (unless the
// text holds unsaved edits), and is solved again.
async function changeLocal(patch) {
  if (!state.doc) return;
  const doc = mergePatch(state.doc, patch);
  state.doc = doc;
  if (!state.dirty) $("editor").value = pretty(doc);
  state.stats.solves++;
  try {
    const r = await api.solve(doc);
    if (!shared()) showSolved(doc, r);
  } catch (e) { handleFailure(e, "solve"); }
}
async function share() {
  if (shared()) {
    try { await navigator.clipboard.writeText(location.href); log("link copied"); }
    catch { log("copy the address bar to share this session"); }
    return;
  }
  setSession(randomID(), { load: false });
  await solveSession();
  if (state.exists) log(`shared as #${state.sessionId}`);
}
function solve() { return shared() ? solveSession() : solveLocal(); }

async function solveSession() {  // PUT the editor's document (creates or replaces the session)
  if (!state.sessionId) setSession(randomID(), { load: false });
  const { text } = editorDocument();
  state.stats.puts++;
  try {
    const r = await api.putSession(state.sessionId, text);
    showErrors(null);
    state.dirty = $("editor").value !== text;
    const created = !state.exists;
    state.exists = true;
    $("banner").className = "";
    log(`${created ? "created" : "solved"} session, revision ${r.revision}`);
    if (created) { state.revision = 0; state.docRevision = 0; }
    applyResult(r, { all: true });
    await refreshDocument();
    subscribe();
  } catch (e) {
    handleFailure(e, "editor");
  }
  renderHeader();
}

let checkTimer = null, checkSeq = 0;
function checkSoon() {
  clearTimeout(checkTimer);
  if (!$("liveCheck").checked) return;
  checkTimer = setTimeout(async () => {
    const seq = ++checkSeq;
    const { text } = editorDocument();
    try {
      const r = await api.solve(text);
      if (seq !== checkSeq) return;
      showErrors(null);
      // Without a session the check is the solve: draw it (the text parsed, or the server would have said).
      if (!shared()) { state.dirty = false; renderHeader(); showSolved(JSON.parse(text), r); }
    } catch (e) {
      if (seq !== checkSeq) return;
      if (e instanceof LayoutdError && e.status === 401) needKey(e); else showErrors(e, "editor");
    }
  }, 400);
}

let pendingSize = null, sizeInFlight = false, dragging = false;
function setRootSize(size) {
  pendingSize = { ...(pendingSize || {}), ...size };
  if (!sizeInFlight) sendSize();
}
async function sendSize() {
  const root = rootOf(state.doc);
  if (!pendingSize || !root || (shared() && !state.exists)) { pendingSize = null; return; }
  const frame = pendingSize;
  pendingSize = null;
  sizeInFlight = true;
  const patch = { views: { [root.id]: { frame } } };
  if (shared()) await sendPatch(patch, "resize"); else await changeLocal(patch);
  sizeInFlight = false;
  if (pendingSize) sendSize(); else renderControls();
}
function setHidden(id, hidden) {
  if (!shared()) return changeLocal({ views: { [id]: { hidden: hidden ? true : null } } });
  return sendPatch({ views: { [id]: { hidden: hidden ? true : null } } }, hidden ? `hide ${id}` : `show ${id}`);
}
async function sendPatch(patch, what) {
  state.stats.patches++;
  const before = state.revision, docBefore = state.doc, docRevision = state.docRevision;
  try {
    const r = await api.patch(state.sessionId, patch);
    if (r.revision === docRevision + 1 && docBefore) {
      setDocument(mergePatch(docBefore, patch), r.revision);
    }
    applyResult(r);
    const s = r.stats || {};
    log(`${what}: rev ${r.revision}, ${Object.keys(r.frames || {}).length} frames changed` +
        (s.pivots !== undefined ? ` (${s.pivots} pivots${s.editsSuggested ? ", edit suggestion" : ""})` : ""));
    if (r.revision === before) renderControls();
  } catch (e) {
    handleFailure(e, "patch");
  }
}

function subscribe() {
  if (state.unsubscribe) state.unsubscribe();
  if (!state.sessionId) return;
  setLive("connecting");
  const id = state.sessionId;
  state.unsubscribe = api.subscribe(id, (event) => {
    if (id !== state.sessionId) return;
    state.stats.sseEvents++;
    setLive("on");
    if (!event.all && event.revision > state.revision) log(`rev ${event.revision} (live): ${Object.keys(event.frames).length} frames changed`);
    applyResult(event);
  }, {
    coordinates: "absolute",
    onOpen: () => { state.stats.opens++; setLive("on"); },
    // With a key the stream is read with fetch and its errors are LayoutdErrors: one that will not be
    // retried ends the stream (401: the key is gone; 404: so is the session).
    onError: (e) => {
      if (!(e instanceof LayoutdError) || e.willRetry) { setLive("connecting"); return; }
      if (id !== state.sessionId) return;
      if (e.status === 404) sessionGone("not found"); else handleFailure(e, "events");
    },
    onDeleted: (e) => { if (id === state.sessionId) sessionGone(e.reason === "expired" ? "expired" : "deleted"); },
    // The daemon is stopping (event: shutdown): the client comes back after its hint.
    onShutdown: (e) => {
      if (id !== state.sessionId) return;
      setLive("connecting");
      log(`the server is restarting: reconnecting in ${((e && e.retry) || 1000) / 1000} s`);
    },
  });
}

function setSession(id, { load = true } = {}) {
  if (state.unsubscribe) { state.unsubscribe(); state.unsubscribe = null; }
  state.sessionId = id;
  state.exists = false;
  state.revision = 0;
  state.docRevision = 0;
  if (location.hash.slice(1) !== encodeURIComponent(id)) history.replaceState(null, "", "#" + encodeURIComponent(id));
  renderHeader();
  if (load) return loadSession();
}

async function loadSession() {
  const id = state.sessionId;
  try {
    const s = await api.getSession(id);
    if (id !== state.sessionId) return;
    state.exists = true;
    state.dirty = false;
    $("banner").className = "";
    setDocument(s.document, s.revision);
    applyResult(s, { all: true });
    subscribe();
    log(`opened session ${id} at revision ${s.revision}`);
  } catch (e) {
    if (e instanceof LayoutdError && e.status === 404) {
      log(`no session ${id} yet: creating it from the editor`);
      await solveSession();
    } else handleFailure(e, "load");
  }
}

// ---- explain on hover (sessions only) ----

// Hovering a view of a session asks GET /v1/sessions/{id}/explain for its left, top, width and height:
// the constraints that decide each value and the chain they come through. Asked only on hover (lazily),
// once per view and revision. A daemon without the route answers 404: the box then stays hidden, quietly.
const EXPLAINED = ["left", "top", "width", "height"];
const explained = new Map();  // "id@revision/view" → the answers, or null when there are none
let explainTimer = null, explaining = null;
function explainSoon(view) {
  clearTimeout(explainTimer);
  explaining = view;
  if (!view || !shared() || !state.exists) { hideExplain(); return; }
  explainTimer = setTimeout(() => explain(view), 150);
}
function hideExplain() { $("explain").hidden = true; }
async function explain(view) {
  const key = `${state.sessionId}@${state.revision}/${view}`;
  let answers = explained.get(key);
  if (answers === undefined) {
    answers = await fetchExplanations(state.sessionId, view);
    explained.set(key, answers);
    if (explained.size > 200) explained.delete(explained.keys().next().value);
  }
  if (explaining !== view) return;
  if (answers) renderExplanations(view, answers); else hideExplain();
}
async function fetchExplanations(id, view) {
  state.stats.explains++;
  const headers = api.apiKey ? { Authorization: "Bearer " + api.apiKey } : {};
  const one = async (attribute) => {
    try {
      const r = await fetch(`/v1/sessions/${encodeURIComponent(id)}/explain?view=${encodeURIComponent(view)}` +
                            `&attribute=${attribute}`, { headers, cache: "no-store" });
      return r.ok ? await r.json() : null;
    } catch { return null; }
  };
  const answers = (await Promise.all(EXPLAINED.map(one))).filter((a) => a && typeof a === "object");
  return answers.length ? answers : null;
}
function describeStep(step) {
  if (typeof step === "string") return step;
  if (step && typeof step === "object") return step.text || step.id || JSON.stringify(step);
  return String(step);
}
function renderExplanations(view, answers) {
  const box = $("explain");
  box.textContent = "";
  const title = document.createElement("h3");
  title.textContent = view;
  const ul = document.createElement("ul");
  for (const a of answers) {
    const li = document.createElement("li");
    const value = typeof a.value === "number" ? +a.value.toFixed(2) : a.value;
    const constraints = (a.constraints || []).map((c) => describeStep(c) +
      (c && c.priority !== undefined && c.priority !== 1000 ? ` @${c.priority}` : ""));
    const chain = Array.isArray(a.chain) && a.chain.length ? a.chain.map(describeStep).join(" → ") : "";
    li.innerHTML = "<code></code> <span></span>";
    li.firstChild.textContent = `${a.attribute || "?"} = ${value}${a.ambiguous ? " (ambiguous)" : ""}`;
    li.lastChild.textContent = chain ? `← ${chain}` : constraints.length ? `← ${constraints.join("; ")}` : "";
    ul.append(li);
  }
  box.append(title, ul);
  box.hidden = false;
}

// ---- wiring ----

$("editor").addEventListener("input", () => { state.dirty = true; renderHeader(); renderBackdrop(); checkSoon(); });
$("editor").addEventListener("scroll", () => { $("backdrop").scrollTop = $("editor").scrollTop; $("backdrop").scrollLeft = $("editor").scrollLeft; });
$("editor").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); solve(); }
  if (e.key === "Tab") { e.preventDefault(); document.execCommand("insertText", false, "  "); }
});
$("solveButton").addEventListener("click", () => solve());
$("shareButton").addEventListener("click", () => share());
$("drawing").addEventListener("mouseover", (e) => {
  const box = e.target.closest && e.target.closest("rect.box");
  if (box) explainSoon(box.dataset.id);
});
$("drawing").addEventListener("mouseleave", () => explainSoon(null));
$("widthSlider").addEventListener("input", (e) => { $("widthOut").textContent = e.target.value; setRootSize({ width: +e.target.value }); });
$("heightSlider").addEventListener("input", (e) => { $("heightOut").textContent = e.target.value; setRootSize({ height: +e.target.value }); });
for (const id of ["widthSlider", "heightSlider"]) {
  $(id).addEventListener("pointerdown", () => { dragging = true; });
  $(id).addEventListener("change", () => { dragging = false; });
}
window.addEventListener("pointerup", () => { dragging = false; });
$("apiKey").addEventListener("change", (e) => setKey(e.target.value));
$("apiKey").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.target.blur(); } });
$("svgLink").addEventListener("click", async (e) => {
  // A stale token would open a 401: get a fresh one first.
  if (!state.sessionId) { e.preventDefault(); return; }
  if (!api.apiKey || $("svgLink").getAttribute("href") !== "#") return;
  e.preventDefault();
  await renewSvgToken();
  if (svgToken && svgToken.sessionId === state.sessionId) window.open(api.renderURL(state.sessionId, svgToken.token), "_blank", "noopener");
});
window.addEventListener("hashchange", () => {
  const id = decodeURIComponent(location.hash.slice(1));
  if (id && id !== state.sessionId) setSession(id);
});

// For tests and the console: the state, the drawn rectangles, and a way to wait for quiet.
window.playground = {
  state, api,
  drawnFrames() {
    const out = {};
    for (const r of document.querySelectorAll("#drawing rect.box")) {
      out[r.dataset.id] = { x: +r.getAttribute("x"), y: +r.getAttribute("y"), width: +r.getAttribute("width"), height: +r.getAttribute("height"), classes: r.getAttribute("class") };
    }
    return out;
  },
  ready: false,
};

async function start() {
  $("apiKey").value = api.apiKey || "";
  $("editor").value = pretty(SAMPLE);
  state.doc = SAMPLE;
  renderBackdrop();
  const fromHash = decodeURIComponent(location.hash.slice(1));
  if (fromHash) await setSession(fromHash);
  else await solveLocal();
  window.playground.ready = true;
}
start();
