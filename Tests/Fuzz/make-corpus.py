#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Tests/Fuzz/Corpus/<target>/) from the conformance fixtures
(Tests/Fixtures/conformance) and examples of docs/document.md and docs/http.md. Run it again after changing the
fixtures or the targets' input formats (Sources/Fuzz/<target>/main.swift describes each format)."""
import glob, json, os, shutil

here = os.path.dirname(os.path.abspath(__file__))
fixtures = sorted(glob.glob(os.path.join(here, '..', 'Fixtures', 'conformance', '*.json')))
SEP = b'\n%\n'  # separates the parts of one input (FuzzSupport.inputParts)


def compact(value):
    return json.dumps(value, separators=(',', ':'), ensure_ascii=False).encode()


documents = []
for path in fixtures:
    with open(path, encoding='utf-8') as f:
        case = json.load(f)
    documents.append((os.path.splitext(os.path.basename(path))[0], case.get('document', case)))


def write(target, name, data):
    with open(os.path.join(here, 'Corpus', target, name), 'wb') as f:
        f.write(data)


for target in ['fuzz-json', 'fuzz-document', 'fuzz-patch', 'fuzz-api']:
    shutil.rmtree(os.path.join(here, 'Corpus', target), ignore_errors=True)
    os.makedirs(os.path.join(here, 'Corpus', target))

# fuzz-json: the fixtures' documents and JSON edge cases.
for name, doc in documents:
    write('fuzz-json', name, compact(doc))
for i, text in enumerate([
    '0', '-0.0e-0', '1.5E+300', '1e400', '-1e-400', '123456789012345678901234567890', '0.1', '[]', '{}', 'null',
    'true', '"\\u00e9\\ud83d\\ude00\\n\\t\\"\\\\\\/"', '"caf\u00e9 e\u0301"', '[[[[[[[[[[1]]]]]]]]]]',
    '{"a":[1,2,{"b":null}],"c":"d"}', ' \t\r\n[1 , 2]\n', '{"a":1,"a":2}', '[1,]',
]):
    write('fuzz-json', 'edge-%02d' % i, text.encode())

# fuzz-document: mode byte 0 then a whole document; other mode bytes splice text into a small document
# (Sources/Fuzz/fuzz-document/main.swift, Splice: 3/13/23/33 an expression in each dialect, 4 an expr entry,
# 5/25 a visual format (25: with an option), 6/16 Visually H(/V(, 7 a predicate, 8 an anchor, 9 a helper's
# attribute, 19 a priority).
for name, doc in documents:
    write('fuzz-document', name, b'\x00' + compact(doc))
spliced = [
    (3, 'a.top == (root.bottom - 100) * 0.5 ~ 999'), (13, 'a.width == b.width + 10 - 4'),
    (23, 'a.m_edges |=| b.m_edges ~ (5, 10, 15, 20) @ 600'), (33, 'a.size == b.size * (2, 3) + 5 + (1, 2)'),
    (3, 'my-view.width == 2col.width-10 ! .high'), (3, 'a == b + 10'), (4, 'a.edges == b.edges + (5 + 5) * 2'),
    (5, 'H:|-pad-[a]-gap-[b(==a)]-|'), (25, 'V:|-[a(44)]-[b(>=100@750)]-20-|'),
    (5, '[a]-(>=8,<=20@500)-[b]->=8-|'), (6, '|-8-a[50]-20-b[50~500]-|)'), (16, '|->=8-a-<=4-`my-view`[25%]-|)'),
    (6, 'a-(>=8 ~ 500)-b[44~UILayoutPriority.fittingSizeLevel])'),
    (7, 'visible(a) || hidden(b) && flag(f) || !flag("dark mode")'), (7, '!(root.width < 600) && 700 >= root.height'),
    (8, 'a.edgesWithinMargins'), (8, 'label.firstBaseline'), (9, 'centerY'), (19, 'UILayoutPriority.defaultLow'),
]
for i, (mode, text) in enumerate(spliced):
    write('fuzz-document', 'splice-%02d' % i, bytes([mode]) + text.encode())

# fuzz-patch: a fixture's document, then merge patches (a leading `!`: with ?strict=true). Inputs are bounded
# (scripts/fuzz passes -max_len=PATCH_MAX_LEN; the target reads at most 8 patches), so the seeds are the
# documents written small: object-form entries without the fields that hold their default. A seed keeps as many
# of its patches as fit.
PATCH_MAX_LEN = 1536
DEFAULTS = {'relation': '==', 'multiplier': 1, 'constant': 0, 'priority': 1000}


def without_defaults(doc):
    doc = json.loads(json.dumps(doc))
    constraints = doc.get('constraints') or {}
    for entry in (constraints.values() if isinstance(constraints, dict) else constraints):
        if isinstance(entry, dict) and 'first' in entry:
            for key, value in DEFAULTS.items():
                if key in entry and entry[key] == value and type(entry[key]) is type(value):
                    del entry[key]
    return doc


patches = [
    {'views': {'root': {'frame': {'width': 500}}}},
    {'constraints': {'added': 'a.width == 40 ~ 750'}},
    {'views': {'a': {'hidden': True}}},
    {'views': {'n': {'parent': 'root'}}, 'constraints': {'n1': 'n.edges == root.edges + 4'}},
    {'flags': {'f': True}, 'delegate': {'a-del': False}},
    {'constraints': {'bad': 'zz.width == 1'}},
    {'views': {'root': {'frame': {'height': 90}}}, 'direction': 'rtl'},
]
for i, (name, doc) in enumerate(documents):
    views = list(doc['views']) if isinstance(doc['views'], dict) else [v.get('id') for v in doc['views']]
    constraints = doc.get('constraints') or {}
    steps = [patches[i % len(patches)], patches[(i + 3) % len(patches)]]
    if isinstance(constraints, dict) and constraints:
        steps.append({'constraints': {list(constraints)[-1]: None}})
    if len(views) > 1:
        steps.append({'views': {views[1]: {'hidden': True, 'alpha': 0.5}}})
    parts = [compact(without_defaults(doc))] + [compact(p) for p in steps]
    if i % 3 == 0:
        parts.append(b'!' + compact({'constraints': {'w1': 'root.width == 10', 'w2': 'root.width == 20'}}))
    while len(SEP.join(parts)) > PATCH_MAX_LEN and len(parts) > 1:
        parts.pop()
    if len(SEP.join(parts)) <= PATCH_MAX_LEN:
        write('fuzz-patch', name, SEP.join(parts))

# fuzz-api: requests written like HTTP (`METHOD TARGET`, headers, empty line, body).
small = compact(documents[1][1])
api = {
    'solve': ['POST /v1/solve?coordinates=absolute&strict=true\nContent-Type: application/json\n\n' + small.decode()],
    'session': ['PUT /v1/sessions/demo\n\n' + small.decode(),
                'PATCH /v1/sessions/demo?frames=all\nContent-Type: application/merge-patch+json\nIf-Match: "1"\n\n'
                '{"views":{"root":{"frame":{"width":200}}}}',
                'GET /v1/sessions/demo\nIf-None-Match: "2"\n', 'GET /v1/sessions/demo/frames?coordinates=relative\n',
                'DELETE /v1/sessions/demo\nIf-Match: *\n', 'GET /v1/sessions/demo\n'],
    'create': ['POST /v1/sessions?strict\n\n' + small.decode(), 'HEAD /healthz\n'],
    'cors': ['OPTIONS /v1/sessions/x\nOrigin: https://app.example\nAccess-Control-Request-Method: PATCH\n',
             'GET /healthz\nOrigin: https://app.example\n'],
    'render': ['POST /v1/render.svg\n\n' + small.decode(), 'PUT /v1/sessions/r\n\n' + small.decode(),
               'GET /v1/sessions/r/render.svg\n', 'GET /v1/sessions/r/events\nAccept: text/event-stream\n'],
    'errors': ['PATCH /v1/sessions/nope\nContent-Type: text/plain\n\n{}', 'BREW /v1/solve\n',
               'POST /v1/solve?strict=maybe\n\n[1,', 'GET /v1/sessions/\n', 'PUT /v1/sessions/bad%20id\n\n{}'],
    'dormant': ['PUT /v1/sessions/a\n\n' + small.decode(), 'PUT /v1/sessions/b\n\n' + small.decode(),
                'PUT /v1/sessions/c\n\n' + small.decode(),
                'PATCH /v1/sessions/a\nContent-Type: application/json\n\n{"constraints":{"c1":null}}',
                'GET /v1/sessions/a\n'],
    'put-if-none-match': ['PUT /v1/sessions/x\nIf-None-Match: *\n\n' + small.decode(),
                          'PUT /v1/sessions/x\nIf-None-Match: *\n\n' + small.decode()],
}
for name, requests in api.items():
    write('fuzz-api', name, SEP.join(r.encode() for r in requests))
for name, doc in documents[:12]:
    write('fuzz-api', 'put-' + name, b'PUT /v1/sessions/' + name.encode()[:20] + b'\n\n' + compact(doc)
          + SEP + b'GET /v1/sessions/' + name.encode()[:20] + b'/render.svg\n')
