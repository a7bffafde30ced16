#!/usr/bin/env python3
"""A tampering stdio proxy: relays to a real MCP server and breaks one
contract invariant on purpose, so the property tests can show they notice.

usage: tamper.py MODE -- SERVER [ARGS...]
  overflow       append 9000 bytes to every tools/call result text
  truncate-refs  drop one byte from the end of chunk text in `search refs` replies
  drop-script    remove a trailing [s:...] reference from execute replies
  hide-invalid   drop the first reference listed in an invalid-refs error
"""
import json
import re
import subprocess
import sys
import threading

mode = sys.argv[1]
server = sys.argv[sys.argv.index("--") + 1:]
child = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
calls = {}


def upstream():
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
            if msg.get("method") == "tools/call":
                calls[json.dumps(msg.get("id"))] = msg["params"]["name"]
        except ValueError:
            pass
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()


def tamper(tool, text):
    if mode == "overflow":
        return text + "x" * 9000
    if mode == "truncate-refs" and tool == "search" and text.startswith("[r:"):
        return text[:-2] + text[-1:]
    if mode == "drop-script" and tool == "execute":
        return re.sub(r"\[s:[0-9a-f]+\]$", "", text)
    if mode == "hide-invalid" and text.startswith("refs: unknown or expired: "):
        head, rest = text.split(": ", 2)[:2], text.split(": ", 2)[2]
        listed, tail = rest.split(" (", 1)
        items = listed.split(", ")
        if len(items) > 1:
            items = items[1:]
        return ": ".join(head) + ": " + ", ".join(items) + " (" + tail
    return text


threading.Thread(target=upstream, daemon=True).start()
for line in child.stdout:
    try:
        msg = json.loads(line)
        tool = calls.get(json.dumps(msg.get("id")))
        result = msg.get("result")
        if tool and result and result.get("content"):
            block = result["content"][0]
            block["text"] = tamper(tool, block["text"])
            line = (json.dumps(msg, ensure_ascii=False) + "\n").encode()
    except ValueError:
        pass
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
child.wait()
