// A typed use of the package: compiled by ClientPackageTests with `tsc --strict --noEmit`.
// Every form of the document appears once, so that a declaration that refuses a valid form fails.
import { Layoutd, LayoutdError, applyFrames } from "../layoutd.js";
import type { Frame, LayoutDocument, LayoutPatch, PatchResult, Problem, RevisionEvent } from "../layoutd.js";

const doc: LayoutDocument = {
  $schema: "https://layoutd.invalid/schemas/layout-document.json",
  direction: "ltr",
  dialect: "standard",
  views: {
    root: { frame: { width: 375, height: 667 }, margins: { top: 20, left: 16, bottom: 20, right: 16 } },
    card: { parent: "root", hugging: { vertical: "high" }, compressionResistance: { horizontal: 760 } },
    title: { parent: "card", intrinsicSize: { width: 120, height: 22 }, baseline: { first: 17, last: 5 } },
    body: { parent: "card", text: { wordWidths: [40, 52, 31], spaceWidth: 4, lineHeight: 20, maxLines: 3 } },
    photo: { parent: "card", heightForWidth: [[100, 75], [200, 150]], alpha: 0.5, hidden: false },
    guide: { parent: "root", kind: "guide" },
    row: { parent: "root", stack: { axis: "horizontal", arranged: ["a", "b"], spacing: 8, distribution: "fillEqually",
                                    alignment: "firstBaseline", layoutMarginsRelative: false, baselineRelative: false } },
    a: {},
    b: {},
  },
  constraints: {
    pin: { first: "card.edges", second: "root.edgesWithinMargins", constant: { top: 8, left: 8, bottom: 8, right: 8 } },
    corner: { first: "title.cornerTL", second: "card.m_cornerTLAnchor", constant: [12, 12] },
    h: { first: "card.height", relation: ">=", constant: 200, priority: 750, activation: { when: "root.width < 600" } },
    text: "body.top == title.bottom + 8 ~ high",
    expr: { expr: "photo.top == body.bottom + 8", priority: "defaultLow", active: true, group: "g", identifier: "i" },
    vfl: { format: "H:|-pad-[a]-[b(==a)]-pad-|", metrics: { pad: 16 }, options: ["alignAllCenterY", ".directionLeadingToTrailing"] },
    align: { align: "centerY", views: ["a", "b"], activation: "bothVisible" },
    spread: { distribute: "horizontal", views: ["a", "b"], spacing: 8, dialect: "mag" },
  },
  flags: { compact: true },
  delegate: { h: false },
};

const arrayForm: LayoutDocument = {
  views: [{ id: "root", frame: { width: 320 } }, { id: "label", parent: "root" }],
  constraints: ["label.centerX == root.centerX", { id: "w", first: "label.width", constant: 100 }],
};

const patch: LayoutPatch = {
  views: { root: { frame: { width: 414 } }, photo: null, card: { hidden: true, margins: { top: null } } },
  constraints: { h: { constant: 240 }, text: null, added: "a.width == b.width" },
  flags: { compact: null },
};

async function main(): Promise<void> {
  const api = new Layoutd("http://127.0.0.1:8080", { coordinates: "relative" });
  const solved = await api.solve(doc, { strict: false });
  const root: Frame = solved.frames["root"];
  const count: number = applyFrames(solved.frames, (id) => document.getElementById(id), { round: "device", animate: { duration: 150 } });
  const s = await api.createSession(arrayForm);
  const changed: PatchResult = await api.patch(s.id, patch, { ifMatch: true, frames: "all" });
  const stop = api.subscribe(s.id, (event: RevisionEvent) => console.log(event.revision, event.removed), {
    onError: (error: LayoutdError) => console.log(error.status, error.problem.errors.map((e) => e.suggestion)),
    onDeleted: (event) => console.log(event.reason),
    onShutdown: (event) => console.log(event.retry),
    apply: { elements: new Map<string, HTMLElement>(), round: "device" },
  });
  stop();
  try {
    await api.getSession("missing");
  } catch (e) {
    if (e instanceof LayoutdError) {
      const problem: Problem = e.problem;
      console.log(problem.status, problem.detail, root.width, count, changed.stats.rebuilt);
    }
  }
}

void main;
