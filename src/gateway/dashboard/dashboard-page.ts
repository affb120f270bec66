/** The operator dashboard's HTML: pending approvals, live sessions, queue and turn rates, recent failures, outbox, health, and the script. */
export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Hermes operator dashboard</title>
<style>
:root { color-scheme: light dark; --fg: #111; --bg: #fff; --muted: #555; --accent: #0a58ca; --line: #ccc; --bad: #b00020; --ok: #146c2e; }
@media (prefers-color-scheme: dark) { :root { --fg: #eee; --bg: #111; --muted: #bbb; --accent: #7ab0ff; --line: #444; --bad: #ff8a80; --ok: #7ee2a8; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: .5rem 1rem; border-bottom: 1px solid var(--line); display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
h1 { font-size: 1.1rem; margin: 0; }
h2 { font-size: 1rem; margin: 1rem 0 .5rem; }
main { padding: 0 1rem 1rem; max-width: 60rem; }
a { color: var(--accent); }
.card { border: 1px solid var(--line); border-radius: .5rem; padding: .5rem .75rem; margin: .5rem 0; }
.approval { border: 2px solid var(--accent); }
.approval code { display: block; white-space: pre-wrap; word-break: break-all; margin: .25rem 0; }
.muted { color: var(--muted); font-size: .9rem; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
.id { overflow-wrap: anywhere; }
caption { text-align: left; padding: .25rem 0; }
.code { font-family: ui-monospace, monospace; font-size: .9rem; }
.ok { color: var(--ok); } .bad { color: var(--bad); }
button, input { font: inherit; }
button { min-height: 44px; min-width: 44px; padding: .4rem .9rem; margin: .25rem .25rem 0 0; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--bg); cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
input { min-height: 44px; padding: .4rem; border: 1px solid var(--line); border-radius: .4rem; color: var(--fg); background: var(--bg); }
button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
#figures { display: flex; gap: 1rem; flex-wrap: wrap; margin: 0; }
#figures div { border: 1px solid var(--line); border-radius: .5rem; padding: .25rem .75rem; }
#figures dt { font-size: .85rem; color: var(--muted); } #figures dd { margin: 0; font-size: 1.2rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.msg { border-left: 3px solid var(--line); padding: .25rem .5rem; margin: .4rem 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { border-color: var(--accent); }
details { margin: .4rem 0; color: var(--muted); } summary { cursor: pointer; min-height: 44px; padding: .6rem 0; }
@media (max-width: 40rem) { .wide { display: none; } }
</style>
</head>
<body>
<header>
<h1>Hermes operator dashboard</h1>
<span id="status" role="status" aria-live="polite">Loading…</span>
<a href="/ui/chat">Web chat</a>
</header>
<main>
<form id="login" hidden>
<p>This dashboard needs its token (HERMES_DASHBOARD_TOKEN).</p>
<label for="token">Dashboard token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>
<section aria-labelledby="h-approvals">
<h2 id="h-approvals">Pending approvals</h2>
<div id="approvals" aria-live="polite"></div>
</section>
<section aria-labelledby="h-sessions">
<h2 id="h-sessions">Live sessions</h2>
<table><caption class="muted" id="sessions-caption"></caption>
<thead><tr><th scope="col">Platform</th><th scope="col">Chat</th><th scope="col" class="wide">User</th><th scope="col">Last activity</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Transcript</span></th></tr></thead>
<tbody id="sessions"></tbody></table>
</section>
<section aria-labelledby="h-transcript" id="transcript-box" hidden>
<h2 id="h-transcript" tabindex="-1">Transcript</h2>
<p class="muted" id="transcript-key"></p>
<div id="transcript"></div>
<button type="button" id="transcript-close" class="secondary">Close transcript</button>
</section>
<section aria-labelledby="h-queue">
<h2 id="h-queue">Queue and turns</h2>
<dl id="figures"></dl>
<table><caption class="muted">Turn rate and latency in this process (the figures of /metrics)</caption>
<thead><tr><th scope="col">Over the last</th><th scope="col">Turns per minute</th><th scope="col">p50</th><th scope="col">p95</th><th scope="col">p99</th></tr></thead>
<tbody id="rates"></tbody></table>
</section>
<section aria-labelledby="h-failures">
<h2 id="h-failures">Recent failures</h2>
<table><caption class="muted" id="failures-caption"></caption>
<thead><tr><th scope="col">When</th><th scope="col">Platform</th><th scope="col" class="wide">Session</th><th scope="col">Error</th></tr></thead>
<tbody id="failures"></tbody></table>
<table><caption class="muted" id="given-up-caption"></caption>
<thead><tr><th scope="col">Given up</th><th scope="col">Platform</th><th scope="col">What</th><th scope="col">Chat</th><th scope="col">Attempts</th></tr></thead>
<tbody id="given-up"></tbody></table>
</section>
<section aria-labelledby="h-outbox">
<h2 id="h-outbox">Delivery outbox</h2>
<table><caption class="muted" id="outbox-caption"></caption>
<thead><tr><th scope="col">Platform</th><th scope="col">What</th><th scope="col">Chat</th><th scope="col">Since</th><th scope="col">Attempts</th></tr></thead>
<tbody id="outbox"></tbody></table>
</section>
<section aria-labelledby="h-health">
<h2 id="h-health">Platforms and health</h2>
<table><thead><tr><th scope="col">Check</th><th scope="col">State</th><th scope="col">Detail</th></tr></thead>
<tbody id="health"></tbody></table>
</section>
</main>
<script src="/ui/dashboard.js"></script>
</body>
</html>
`;
}
