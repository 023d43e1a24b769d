-- A small non-streaming chat completion with a session header, the same on every request:
-- one session, so every step through the router is STICKY on the one replica.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Session-Id"] = "wrk-ratio-session"
wrk.body = '{"model":"Qwen/Qwen3-4B-Instruct-2507","max_tokens":8,"stream":false,'
  .. '"messages":[{"role":"system","content":"You are a helpful coding assistant."},'
  .. '{"role":"user","content":"Write a one-line shell command that counts the lines of every Java file in a directory tree."}]}'
