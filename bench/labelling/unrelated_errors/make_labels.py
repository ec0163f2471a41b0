import json, re, subprocess
REQ_HEAD = subprocess.run(["git", "-C", "/work/bench/search7/requests-wt", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
EX_HEAD = subprocess.run(["git", "-C", "/work/bench/search7/express-wt", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()

def py_text(out):
    t = out
    t = t.replace("/work/bench/search7/requests-wt/src/requests", "/home/dev/.venv/lib/python3.11/site-packages/requests")
    t = t.replace("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/", "/home/dev/.venv/lib/python3.11/site-packages/")
    t = t.replace("/root/.pyenv/versions/3.11.7/lib/python3.11/", "/usr/lib/python3.11/")
    t = t.replace("/work/bench/search7/repro/py/", "/home/dev/project/")
    return t

def js_text(out):
    lines = out.splitlines()
    t = "\n".join(lines[:14]) + "\n"
    t = t.replace("/work/bench/search7/express-wt/", "/home/dev/shop/node_modules/express/")
    t = t.replace("/work/bench/search7/repro/ex/", "/home/dev/shop/routes/")
    return t

def inner(text, pat):
    ms = list(re.finditer(pat, text))
    return ms

rows = []
py = {
 "events": ("req-u-json-datetime", "requests.post(json=...) with a datetime value: the standard json module cannot encode it; no commit handles non-serialisable json= values"),
 "upload_csv": ("req-u-generator-raises", "the caller's body generator raises mid-upload; the error is the caller's own, raised through urllib3's chunked send"),
 "client": ("req-u-mount-non-adapter", "an object without send() mounted as a transport adapter"),
 "cart": ("req-u-cookies-list", "cookies= given as a list of pairs instead of a dict or CookieJar"),
 "poll": ("req-u-timeout-string", "timeout read from an environment variable, still a string; urllib3 rejects it"),
 "me": ("req-u-auth-one-tuple", "auth=('alice',): a 1-tuple is not turned into HTTPBasicAuth and is called as an auth handler"),
}
for f, (rid, note) in py.items():
    out = open(f"py/{f}.out").read()
    text = py_text(out)
    frames = re.findall(r'File "/home/dev/.venv/lib/python3.11/site-packages/requests/([^"]+)", line (\d+)', text)
    path, line = frames[-1]
    msg = text.strip().splitlines()[-1]
    rows.append({"id": rid, "repo": "psf/requests", "kind": "unrelated", "text": text, "message": msg,
                 "path": "src/requests/" + path, "line": int(line), "relevant": [], "as_of": REQ_HEAD,
                 "source": "reproduced", "note": note + ". Run at HEAD (" + REQ_HEAD[:8] + "), Python 3.11, urllib3 2.7; paths rewritten to a virtualenv's; git log -i --grep of the message's words finds no fix."})
ex = {
 "order": ("ex-u-json-circular", "res.json of an object that refers to itself"),
 "account": ("ex-u-json-bigint", "res.json of a BigInt, which JSON.stringify refuses"),
 "ledger": ("ex-u-tojson-throws", "the caller's toJSON() throws inside res.json"),
 "invoice": ("ex-u-attachment-number", "res.attachment(42): a number where a file name is expected, rejected by path.basename"),
 "pages": ("ex-u-links-null", "res.links(null): Object.keys of null"),
 "report": ("ex-u-format-string", "res.format with a string instead of a callback for a type"),
}
for f, (rid, note) in ex.items():
    out = open(f"ex/{f}.out").read()
    text = js_text(out)
    frames = re.findall(r"/home/dev/shop/node_modules/express/(lib/[^:]+):(\d+):\d+", text)
    path, line = frames[0]
    msg = text.splitlines()[0]
    rows.append({"id": rid, "repo": "expressjs/express", "kind": "unrelated", "text": text, "message": msg,
                 "path": path, "line": int(line), "relevant": [], "as_of": EX_HEAD,
                 "source": "reproduced", "note": note + ". Run at HEAD (" + EX_HEAD[:8] + "), Node 20.20, NODE_ENV=development (the default error handler logs the stack); paths rewritten to an app's node_modules; git log -i --grep of the message's words finds no fix."})
for r in rows:
    print(json.dumps(r, ensure_ascii=False))
