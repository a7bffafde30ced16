#!/usr/bin/env python3
"""A stand-in MCP stdio server for the harness's own tests.

It offers one tool, `search`, and breaks the QuietContext contract on
purpose when asked:
  ok           behaves (tools/list small, replies small)
  fat-list     tools/list over 4096 bytes
  over-budget  a search reply of 20 000 bytes (over the 8192-byte cap)
  verbose      replies 4x longer than `ok` (a token regression)
"""
import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


def tools():
    description = "Search indexed text."
    if MODE == "fat-list":
        description = "padding words " * 400
    return [{
        "name": "search",
        "description": description,
        "inputSchema": {"type": "object", "properties": {"queries": {"type": "array"}}},
    }]


def reply_text(args):
    query = (args.get("queries") or ["?"])[0]
    if MODE == "over-budget":
        return "x" * 20000
    text = f"q: {query} - no match\n"
    return text * 4 if MODE == "verbose" else text


def answer(msg):
    method = msg.get("method")
    if method == "initialize":
        return {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "standin", "version": "0"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": tools()}
    if method == "tools/call":
        args = msg.get("params", {}).get("arguments", {})
        return {"content": [{"type": "text", "text": reply_text(args)}]}
    return None


for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    result = answer(msg)
    if result is None:
        out = {"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}}
    else:
        out = {"jsonrpc": "2.0", "id": msg["id"], "result": result}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
