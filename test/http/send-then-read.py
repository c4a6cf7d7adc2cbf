# A real HTTP client that sends its whole request body before it reads the answer, as most clients do (Python's
# http.client here). Usage: send-then-read.py URL METHOD TRIES CHUNKED BODY_FILE [Header: value ...]
# Prints one JSON line per try: {"status": 413, "code": "payload_too_large"} or {"error": "..."}.
import http.client, json, sys, urllib.parse

url, method, tries, chunked, body_file, *headers = sys.argv[1:]
parts = urllib.parse.urlsplit(url)
with open(body_file, "rb") as f:
    body = f.read()
head = dict(h.split(": ", 1) for h in headers)
for _ in range(int(tries)):
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        path = parts.path + ("?" + parts.query if parts.query else "")
        if chunked == "1":
            blocks = (body[i : i + 65536] for i in range(0, len(body), 65536))
            conn.request(method, path, body=blocks, headers=head, encode_chunked=True)
        else:
            conn.request(method, path, body=body, headers=head)
        res = conn.getresponse()
        text = res.read()
        code = json.loads(text)["error"]["code"] if text.startswith(b"{") else None
        print(json.dumps({"status": res.status, "code": code}))
    except Exception as e:
        print(json.dumps({"error": type(e).__name__ + ": " + str(e)}))
    finally:
        conn.close()
