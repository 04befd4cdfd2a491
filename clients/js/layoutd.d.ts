// layoutd.d.ts: the types of layoutd.js (docs/web.md) and of the layout document
// (docs/document.md, docs/layout-document.schema.json).
//
// The document types follow the JSON Schema member for member: objects the schema closes
// (`additionalProperties: false`) are interfaces without index signatures, so a misspelt field in an
// object literal fails to compile. Tests/WebAssetsTests/ClientPackageTests.swift keeps them in step with
// the schema (clients/js/check-types) and compiles clients/js/examples/typed.ts with `tsc --strict`.

// -- the layout document -------------------------------------------------------------------------

/** A view or constraint id: 1 to 128 of `A-Z a-z 0-9 _ - #` (no `.`). */
export type Id = string;

/** A priority name (docs/document.md section 5). */
export type PriorityName =
  | "required" | "defaultHigh" | "high" | "medium" | "defaultLow" | "low" | "fittingSizeLevel"
  | "fittingSize" | "dragThatCanResizeWindow" | "windowSizeStayPut" | "dragThatCannotResizeWindow";

/** A number in (0, 1000], 1000 = required, or a name. */
export type Priority = number | PriorityName;

/** The arithmetic of expressions (docs/document.md 4.3). */
export type Dialect = "standard" | "mag" | "mortar" | "cartography";

/** Priorities along each axis (hugging, compression resistance). */
export interface AxisPriorities {
  horizontal?: Priority;
  vertical?: Priority;
}

/** A view's `frame`: on a root the size given; elsewhere each field is a required constraint. */
export interface FrameInput {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

/** `intrinsicSize`: the content size that hugging and compression resistance pull towards. */
export interface IntrinsicSize {
  width?: number;
  height?: number;
}

/** Layout margins, read by the `...Margin` anchors; a key left out stays 8. */
export interface Margins {
  top?: number;
  left?: number;
  bottom?: number;
  right?: number;
}

/** Distances to the first baseline (from the top) and the last (from the bottom). */
export interface Baseline {
  first?: number;
  last?: number;
}

/** A stack view's properties (UIStackView's, docs/document.md 2.6). */
export interface Stack {
  axis?: "horizontal" | "vertical";
  arranged?: Id[];
  spacing?: number;
  distribution?: "fill" | "fillEqually" | "fillProportionally" | "equalSpacing" | "equalCentering";
  alignment?: "fill" | "leading" | "top" | "center" | "trailing" | "bottom" | "firstBaseline" | "lastBaseline";
  layoutMarginsRelative?: boolean;
  baselineRelative?: boolean;
}

/** Measured text that wraps to the view's width (the words' widths, measured by the page). */
export interface TextMeasure {
  wordWidths: number[];
  spaceWidth: number;
  lineHeight: number;
  maxLines?: number;
}

/** A view (docs/document.md section 2). */
export interface View {
  id?: Id;
  parent?: Id;
  kind?: "view" | "guide";
  frame?: FrameInput;
  hidden?: boolean;
  alpha?: number;
  intrinsicSize?: IntrinsicSize;
  hugging?: AxisPriorities;
  compressionResistance?: AxisPriorities;
  margins?: Margins;
  baseline?: Baseline;
  stack?: Stack;
  text?: TextMeasure;
  /** `[width, height]` pairs: the height the content needs at each width. */
  heightForWidth?: [number, number][];
}

/** A view of the array form, where `id` is required. */
export interface ArrayView extends View {
  id: Id;
}

/** Views keyed by id (the canonical form), or an array of views with ids. */
export type Views = { [id: string]: View } | ArrayView[];

/** A single attribute (docs/document.md section 3). */
export type SingleAttribute =
  | "left" | "right" | "top" | "bottom" | "leading" | "trailing" | "width" | "height" | "centerX"
  | "centerY" | "firstBaseline" | "lastBaseline" | "baseline" | "leftMargin" | "rightMargin"
  | "topMargin" | "bottomMargin" | "leadingMargin" | "trailingMargin" | "centerXWithinMargins"
  | "centerYWithinMargins" | "centerXWithinMargin" | "centerYWithinMargin";

/** A composite attribute (docs/document.md 3.5). */
export type CompositeAttribute =
  | "size" | "center" | "edges" | "edge" | "horizontal" | "vertical" | "sides" | "caps" | "cornerTL"
  | "cornerTR" | "cornerBL" | "cornerBR" | "frame" | "edgesWithinMargins" | "edgeWithinMargins"
  | "edgesWithinMargin" | "edgeWithinMargin" | "centerWithinMargins" | "centerWithinMargin";

/** An attribute with its aliases: a leading `m_`, a trailing `Anchor`. */
export type Attribute = `${"" | "m_"}${SingleAttribute | CompositeAttribute}${"" | "Anchor"}`;

/** `viewId.attribute`, e.g. `card.top`, `root.edges`. */
export type Anchor = `${string}.${Attribute}`;

/** An expression entry, e.g. `"card.top == root.top + 40"` or `"a.width >= 100 ~ high"`. */
export type Expression = string;

/** When an entry's constraints are in the solver (docs/document.md section 6). */
export type Activation = "always" | "manual" | "bothVisible" | "firstInvisible" | "delegate" | WhenRule;

/** Active while the predicate holds, e.g. `"root.width < 600 && !flag(compact)"`. */
export interface WhenRule {
  when: string;
}

/** The fields every object entry may have. */
export interface EntryFields {
  priority?: Priority;
  activation?: Activation;
  active?: boolean;
  group?: string;
  identifier?: string;
  dialect?: Dialect;
  id?: Id;
}

export type Relation = "==" | ">=" | "<=" | "equal" | "greaterThanOrEqual" | "lessThanOrEqual";

/** A composite's constant as an object: insets, or the components of `frame`, `size`, `center`. */
export type ConstantObject =
  | { top?: number; left?: number; bottom?: number; right?: number }
  | { x?: number; y?: number; width?: number; height?: number };

/** The object form: `first relation multiplier × second + constant` (docs/document.md 4.1). */
export interface ObjectForm extends EntryFields {
  first: Anchor;
  relation?: Relation | null;
  second?: Anchor | null;
  multiplier?: number | number[] | null;
  constant?: number | number[] | ConstantObject | null;
}

/** The expression form with the common fields (docs/document.md 4.2). */
export interface ExpressionForm extends EntryFields {
  expr: string;
}

export type FormatOption =
  | "alignAllTop" | "alignAllBottom" | "alignAllLeading" | "alignAllTrailing" | "alignAllLeft"
  | "alignAllRight" | "alignAllCenterX" | "alignAllCenterY" | "alignAllFirstBaseline"
  | "alignAllLastBaseline" | "alignAllBaseline" | "directionLeadingToTrailing" | "directionLeftToRight"
  | "directionRightToLeft";

/** Apple's Visual Format Language, or the Visually form (docs/document.md 4.4, 4.5). */
export interface VisualFormat extends EntryFields {
  format: string;
  metrics?: { [name: string]: number };
  options?: (FormatOption | `.${FormatOption}`)[];
}

/** Cartography's `align` helper (docs/document.md 4.6). */
export interface AlignHelper extends EntryFields {
  align: Attribute;
  views: Id[];
}

/** Cartography's `distribute` helper (docs/document.md 4.6); no `spacing` on equalWidth/equalHeight. */
export interface DistributeHelper extends EntryFields {
  distribute: "horizontal" | "leftToRight" | "vertical" | "equalWidth" | "equalHeight";
  views: Id[];
  spacing?: number;
}

/** A constraint entry: an expression string or one of the object forms. */
export type Constraint = Expression | ObjectForm | ExpressionForm | VisualFormat | AlignHelper | DistributeHelper;

/** Entries keyed by id (document order), or an array (an entry without `id` is `#<index>`). */
export type Constraints = { [id: string]: Constraint } | Constraint[];

/** A layout document (docs/document.md). */
export interface LayoutDocument {
  $schema?: string;
  direction?: "ltr" | "rtl";
  dialect?: Dialect;
  views: Views;
  constraints?: Constraints;
  flags?: { [name: string]: boolean };
  delegate?: { [constraintId: string]: boolean };
}

/**
 * A JSON merge patch (RFC 7396) of `T`: every member optional, `null` deletes it, objects merge
 * member by member, arrays and strings replace.
 */
export type MergePatch<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends readonly unknown[]
    ? T
    : { [K in keyof T]?: MergePatch<T[K]> | null };

/** A merge patch of a layout document, e.g. `{views: {card: {hidden: true}}, constraints: {old: null}}`. */
export type LayoutPatch = MergePatch<LayoutDocument>;

// -- the answers ---------------------------------------------------------------------------------

/** A view's frame: x and y relative to the parent (or the root with `coordinates: "absolute"`). */
export interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Frames keyed by view id, in document order. */
export type Frames = { [id: string]: Frame };

export interface BrokenConstraint {
  id: string;
  conflictsWith: string[];
  group?: string;
  identifier?: string;
}

export interface Diagnostics {
  broken: BrokenConstraint[];
  ambiguous: string[];
  inactive: string[];
  /** Text views whose height still changed after 8 re-solves; present only when not empty. */
  unsettled?: string[];
}

/** `POST /v1/solve`. */
export interface SolveResult {
  frames: Frames;
  diagnostics: Diagnostics;
}

/** `POST /v1/sessions`, `PUT /v1/sessions/{id}`. */
export interface SessionSolved {
  id: string;
  revision: number;
  frames: Frames;
  diagnostics: Diagnostics;
}

/** `GET /v1/sessions/{id}`: the canonical document (views and constraints keyed by id). */
export interface Session {
  id: string;
  revision: number;
  document: LayoutDocument;
  frames: Frames;
  diagnostics: Diagnostics;
}

/** `GET /v1/sessions/{id}/frames`. */
export interface SessionFrames {
  revision: number;
  frames: Frames;
  diagnostics: Diagnostics;
}

export interface EditStats {
  added: number;
  removed: number;
  constantsChanged: number;
  editsSuggested: number;
  pivots: number;
  rebuilt: boolean;
}

/** `PATCH /v1/sessions/{id}`: the frames that changed (all with `frames: "all"`). */
export interface PatchResult {
  revision: number;
  frames: Frames;
  diagnostics: Diagnostics;
  stats: EditStats;
}

/** `POST /v1/sessions/{id}/tokens`. */
export interface StreamToken {
  token: string;
  expiresIn: number;
}

/** `event: revision`: every frame first (`all: true`), then what changed and what went away. */
export interface RevisionEvent {
  revision: number;
  all: boolean;
  frames: Frames;
  removed: string[];
  diagnostics: Diagnostics;
}

/** `event: deleted` or `event: expired`: the session is gone; the stream ends. */
export interface EndEvent {
  id: string;
  reason: "deleted" | "expired";
}

/** `event: shutdown`: the daemon is stopping; the client reconnects after `retry` ms. */
export interface ShutdownEvent {
  id: string;
  retry: number;
}

/** One problem of a request: where (an RFC 6901 pointer), a stable code, and words. */
export interface ProblemError {
  pointer: string;
  code: string;
  detail: string;
  /** The near known name when a view id, attribute, field or priority name looks misspelt. */
  suggestion?: string;
}

/** An RFC 9457 problem (application/problem+json). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors: ProblemError[];
  line?: number;
  column?: number;
  revision?: number;
  broken?: BrokenConstraint[];
  requestId?: string;
}

// -- the client ----------------------------------------------------------------------------------

export type Coordinates = "relative" | "absolute";

/** A failed request or stream: `status` (0 for the network), the `problem` body and its `errors`. */
export class LayoutdError extends Error {
  constructor(status: number, problem?: Problem | null);
  readonly name: "LayoutdError";
  readonly status: number;
  readonly problem: Problem;
  readonly errors: ProblemError[];
  readonly type: string | undefined;
  /** On stream errors: whether the subscription reconnects. */
  willRetry?: boolean;
}

export interface ClientOptions {
  coordinates?: Coordinates;
  apiKey?: string;
}

export interface SolveOptions {
  coordinates?: Coordinates;
  /** Answer 409 instead of a best effort when required constraints conflict. */
  strict?: boolean;
}

export interface WriteOptions extends SolveOptions {
  /** `true`: the last revision this client saw; a number: that revision. */
  ifMatch?: boolean | number;
}

export interface PatchOptions extends WriteOptions {
  frames?: "changed" | "all";
}

/** Where `applyFrames` finds the element of a view id. */
export type ElementLookup =
  | { [id: string]: HTMLElement | null | undefined }
  | Map<string, HTMLElement>
  | ((id: string) => HTMLElement | null | undefined);

export interface ApplyFramesOptions {
  /** `"device"` rounds edges to device pixels (`window.devicePixelRatio`); default: no rounding. */
  round?: "device" | "none";
  /** Animate from the previous frame to the new one (Web Animations API), `duration` in ms. */
  animate?: false | { duration: number; easing?: string };
}

export interface SubscribeOptions {
  coordinates?: Coordinates;
  /** Each time a stream opens. */
  onOpen?: () => void;
  /** A refused request (404 no such session, 401, 403, …) or an interrupted stream. */
  onError?: (error: LayoutdError) => void;
  /** The session was deleted or expired; the subscription has ended. */
  onDeleted?: (event: EndEvent) => void;
  /** The daemon is shutting down; the subscription reconnects after `event.retry` ms. */
  onShutdown?: (event: ShutdownEvent) => void;
  /** Apply every revision's frames to these elements (`applyFrames`), before `onRevision`. */
  apply?: { elements: ElementLookup } & ApplyFramesOptions;
}

export class Layoutd {
  constructor(baseURL?: string, options?: ClientOptions);
  baseURL: string;
  coordinates: Coordinates | undefined;
  apiKey: string | undefined;
  revision(id: string): number | undefined;
  solve(doc: LayoutDocument, options?: SolveOptions): Promise<SolveResult>;
  createSession(doc: LayoutDocument, options?: SolveOptions): Promise<SessionSolved>;
  putSession(id: string, doc: LayoutDocument, options?: WriteOptions): Promise<SessionSolved>;
  getSession(id: string, options?: { coordinates?: Coordinates }): Promise<Session>;
  patch(id: string, mergePatch: LayoutPatch, options?: PatchOptions): Promise<PatchResult>;
  frames(id: string, options?: { coordinates?: Coordinates }): Promise<SessionFrames>;
  deleteSession(id: string, options?: { ifMatch?: boolean | number }): Promise<null>;
  renderURL(id: string, token?: string | StreamToken): string;
  streamToken(id: string): Promise<StreamToken>;
  /** Follows the session's revisions; returns a function that unsubscribes. */
  subscribe(id: string, onRevision?: ((event: RevisionEvent) => void) | null, options?: SubscribeOptions): () => void;
}

/**
 * Positions elements absolutely from frames (parent-relative by default: nest the elements as the
 * views are nested). Returns how many elements it positioned.
 */
export function applyFrames(frames: Frames, elements: ElementLookup, options?: ApplyFramesOptions): number;

/** The text/event-stream parser the client uses: feed it text chunks. */
export function sseParser(
  dispatch: (type: string, data: string, id: string | undefined) => void,
  setRetry?: (ms: number) => void,
): (chunk: string) => void;

export default Layoutd;
