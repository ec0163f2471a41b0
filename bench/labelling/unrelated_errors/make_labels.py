"""Label rows for the unrelated errors reproduced by the scripts in py/ and js/.

    python make_labels.py REQUESTS_CLONE EXPRESS_CLONE OUTPUT_FOLDER > rows.jsonl

OUTPUT_FOLDER holds py/NAME.out and js/NAME.out (each script's stderr and stdout). Paths are
rewritten to a virtualenv's and an app's node_modules, as a user would paste them.
"""

import json
import re
import subprocess
import sys

REQUESTS, EXPRESS, OUT = sys.argv[1:4]
PY = {
    "events": ("req-u-json-datetime", "requests.post(json=...) with a datetime value: the json "
               "module cannot encode it; no commit handles non-serialisable json= values"),
    "upload_csv": ("req-u-generator-raises", "the caller's body generator raises mid-upload; "
                   "the error is the caller's own, raised through urllib3's chunked send"),
    "client": ("req-u-mount-non-adapter", "an object without send() mounted as an adapter"),
    "cart": ("req-u-cookies-list", "cookies= given as a list of pairs, not a dict or CookieJar"),
    "poll": ("req-u-timeout-string", "timeout read from an environment variable, still a "
             "string; urllib3 rejects it"),
    "me": ("req-u-auth-one-tuple", "auth=('alice',): a 1-tuple is not turned into "
           "HTTPBasicAuth and is called as an auth handler"),
}
JS = {
    "order": ("ex-u-json-circular", "res.json of an object that refers to itself"),
    "account": ("ex-u-json-bigint", "res.json of a BigInt, which JSON.stringify refuses"),
    "ledger": ("ex-u-tojson-throws", "the caller's toJSON() throws inside res.json"),
    "invoice": ("ex-u-attachment-number", "res.attachment(42): a number where a file name is "
                "expected, rejected by path.basename"),
    "pages": ("ex-u-links-null", "res.links(null): Object.keys of null"),
    "report": ("ex-u-format-string", "res.format with a string instead of a callback"),
}
CHECKED = "git log -i --grep of the message's words finds no fix."


def head(clone: str) -> str:
    return subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()


def python_rows():
    sha = head(REQUESTS)
    for name, (row_id, note) in PY.items():
        text = open(f"{OUT}/py/{name}.out").read()
        text = text.replace(f"{REQUESTS}/src/requests", "/home/dev/.venv/lib/python3.11/"
                            "site-packages/requests")
        text = re.sub(r"/\S+?/lib/python3\.11/site-packages/", "/home/dev/.venv/lib/python3.11/"
                      "site-packages/", text)
        text = re.sub(r"/\S+?/lib/python3\.11/(?!site-packages)", "/usr/lib/python3.11/", text)
        text = re.sub(r'File "/\S+/py/', 'File "/home/dev/project/', text)
        path, line = re.findall(r'site-packages/requests/([^"]+)", line (\d+)', text)[-1]
        yield {"id": row_id, "repo": "psf/requests", "kind": "unrelated", "text": text,
               "message": text.strip().splitlines()[-1], "path": "src/requests/" + path,
               "line": int(line), "relevant": [], "as_of": sha, "source": "reproduced",
               "note": f"{note}. Run at HEAD ({sha[:8]}), Python 3.11, urllib3 2.7; {CHECKED}"}


def node_rows():
    sha = head(EXPRESS)
    for name, (row_id, note) in JS.items():
        text = "\n".join(open(f"{OUT}/js/{name}.out").read().splitlines()[:14]) + "\n"
        text = text.replace(EXPRESS + "/", "/home/dev/shop/node_modules/express/")
        text = re.sub(r"\((?:(?!node_modules)[^\s()])+/(\w+\.js):", r"(/home/dev/shop/routes/\1:",
                      text)  # the route scripts' own folder
        path, line = re.findall(r"node_modules/express/(lib/[^:]+):(\d+):\d+", text)[0]
        yield {"id": row_id, "repo": "expressjs/express", "kind": "unrelated", "text": text,
               "message": text.splitlines()[0], "path": path, "line": int(line),
               "relevant": [], "as_of": sha, "source": "reproduced",
               "note": f"{note}. Run at HEAD ({sha[:8]}), Node 20.20, NODE_ENV=development (the "
                       f"default error handler logs the stack); {CHECKED}"}


for row in (*python_rows(), *node_rows()):
    print(json.dumps(row, ensure_ascii=False))
