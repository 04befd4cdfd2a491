// Misspelt documents and patches that `tsc --strict` must refuse (ClientPackageTests): one error each.
import type { LayoutDocument, LayoutPatch } from "../../../clients/js/layoutd.js";

export const misspeltField: LayoutDocument = { views: { root: { frame: { widht: 320 } } } };
export const misspeltViewField: LayoutPatch = { views: { button: { hiden: true } } };
export const misspeltAttribute: LayoutDocument = { views: { a: {} }, constraints: { c: { first: "a.centerx", constant: 1 } } };
export const misspeltPriority: LayoutDocument = { views: { a: {} }, constraints: { c: { expr: "a.width == 1", priority: "hihg" } } };
export const misspeltEntryField: LayoutPatch = { constraints: { c: { constnat: 80 } } };
