/** The web chat's HTML: a log of the conversation, a message box, and the script. */
export function webChatPage(options: { readonly keyRequired: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hermes web chat</title>
<style>
:root { color-scheme: light dark; --fg: #111; --bg: #fff; --muted: #555; --accent: #0a58ca; --line: #ccc; }
@media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #111; --muted: #bbb; --accent: #7ab0ff; --line: #444; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); display: flex; flex-direction: column; height: 100vh; }
header { padding: .5rem 1rem; border-bottom: 1px solid var(--line); display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
h1 { font-size: 1.1rem; margin: 0; }
#log { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column; gap: .75rem; }
.msg { max-width: 48rem; padding: .5rem .75rem; border-radius: .5rem; border: 1px solid var(--line); white-space: pre-wrap; word-wrap: break-word; }
.user { align-self: flex-end; background: color-mix(in srgb, var(--accent) 12%, var(--bg)); }
.tool { color: var(--muted); font-size: .9rem; border-style: dashed; }
.prompt { border: 2px solid var(--accent); }
.prompt code { display: block; margin: .25rem 0; white-space: pre-wrap; }
.error { border-color: #b00020; }
button, input, textarea { font: inherit; }
button { min-height: 44px; min-width: 44px; padding: .4rem .9rem; margin: .25rem .25rem 0 0; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button:focus-visible, textarea:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
form#composer { display: flex; gap: .5rem; padding: .75rem 1rem; border-top: 1px solid var(--line); }
textarea { flex: 1; min-height: 44px; padding: .5rem; border-radius: .4rem; border: 1px solid var(--line); color: var(--fg); background: var(--bg); resize: vertical; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
</style>
</head>
<body data-key-required="${options.keyRequired ? 'true' : 'false'}">
<header>
<h1>Hermes web chat</h1>
<span id="status" role="status" aria-live="polite">Ready</span>
<button type="button" id="new-chat" class="secondary">New chat</button>
</header>
<main id="log" role="log" aria-live="polite" aria-label="Conversation"></main>
<form id="composer">
<label for="message" class="visually-hidden">Message</label>
<textarea id="message" name="message" rows="2" placeholder="Message the agent" required></textarea>
<button type="submit" id="send">Send</button>
</form>
<script src="/ui/chat/app.js"></script>
</body>
</html>
`;
}
