// The web chat in the browser: talks to the agent over the Runs API (attended runs), streams a
// run's events, and shows its approval and clarify prompts as buttons. The run being followed is
// kept in the tab's session storage, so a reload replays it from the start and follows it on.

const store = window.sessionStorage;
const log = document.getElementById('log');
const statusLine = document.getElementById('status');
const form = document.getElementById('composer');
const box = document.getElementById('message');
const keyRequired = document.body.dataset.keyRequired === 'true';

function sessionId() {
  let id = store.getItem('hermes.session');
  if (id === null) {
    id = `web-${crypto.randomUUID()}`;
    store.setItem('hermes.session', id);
  }
  return id;
}

function apiKey() {
  if (!keyRequired) return undefined;
  let key = store.getItem('hermes.key');
  if (key === null || key === '') {
    key = window.prompt('API key (API_SERVER_KEY) for this gateway') ?? '';
    store.setItem('hermes.key', key);
  }
  return key;
}

function headers(extra = {}) {
  const key = apiKey();
  return { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

function setStatus(text) {
  statusLine.textContent = text;
}

function add(kind, text) {
  const node = document.createElement('div');
  node.className = `msg ${kind}`;
  if (text !== undefined) node.textContent = text;
  log.append(node);
  node.scrollIntoView({ block: 'end' });
  return node;
}

async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, data };
}

/** Renders one run's events into the log; `view` holds the nodes of the run. */
function render(view, runId, type, data) {
  switch (type) {
    case 'text_delta':
      view.answer ??= add('assistant');
      view.answer.textContent += data.text;
      break;
    case 'tool_started':
      add('tool', `${data.emoji ?? '🔧'} ${data.name ?? data.tool ?? 'tool'} ${data.preview ?? ''}`.trim());
      break;
    case 'approval_requested':
      setStatus('Waiting for your approval');
      view.prompt = promptBox(runId, data, 'approval');
      break;
    case 'clarify_asked':
      setStatus('Waiting for your answer');
      view.prompt = promptBox(runId, data, 'clarify');
      break;
    case 'approval_resolved':
    case 'clarify_answered':
      if (view.prompt !== undefined) settlePrompt(view.prompt, data.outcome);
      view.prompt = undefined;
      view.answer = undefined;
      setStatus('Working…');
      break;
    case 'done':
      view.answer ??= add('assistant');
      view.answer.textContent = data.output === '' ? '(no reply)' : data.output;
      finishRun('Ready');
      break;
    case 'failed':
      add('assistant error', `⚠️ ${data.message}`);
      finishRun('Ready (the last run failed)');
      break;
    default:
      break;
  }
}

function promptBox(runId, data, kind) {
  const node = add('prompt');
  node.setAttribute('role', 'group');
  const title = document.createElement('p');
  title.textContent = kind === 'approval' ? 'The agent wants to run:' : data.question;
  node.append(title);
  if (kind === 'approval') {
    const code = document.createElement('code');
    code.textContent = data.command;
    const why = document.createElement('p');
    why.textContent = `Flagged: ${data.why}. Expires ${new Date(data.expires_at).toLocaleTimeString()}.`;
    node.append(code, why);
  }
  node.setAttribute('aria-label', kind === 'approval' ? 'Approval needed' : 'Question');
  const labels = {
    once: 'Allow once',
    session: 'Allow for this session',
    always: 'Always allow',
    deny: 'Deny',
  };
  for (const choice of data.choices) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = kind === 'approval' ? (labels[choice] ?? choice) : choice;
    if (choice === 'deny') button.className = 'secondary';
    button.addEventListener('click', () => answer(node, runId, kind, data.id, choice));
    node.append(button);
  }
  if (kind === 'clarify') {
    const other = document.createElement('form');
    const input = document.createElement('input');
    input.setAttribute('aria-label', 'Your answer');
    const send = document.createElement('button');
    send.textContent = 'Answer';
    other.append(input, send);
    other.addEventListener('submit', (event) => {
      event.preventDefault();
      if (input.value.trim() !== '') void answer(node, runId, kind, data.id, input.value.trim());
    });
    node.append(other);
  }
  node.querySelector('button')?.focus();
  return node;
}

async function answer(node, runId, kind, id, value) {
  for (const button of node.querySelectorAll('button')) button.disabled = true;
  const body = kind === 'approval' ? { choice: value, id } : { answer: value, id };
  const result = await post(`/v1/runs/${runId}/${kind === 'approval' ? 'approval' : 'clarify'}`, body);
  if (!result.ok) {
    settlePrompt(node, result.data?.error?.message ?? `refused (${result.status})`);
  }
}

function settlePrompt(node, outcome) {
  for (const button of node.querySelectorAll('button, form')) button.remove();
  const note = document.createElement('p');
  note.textContent = `→ ${outcome}`;
  node.append(note);
}

function finishRun(text) {
  store.removeItem('hermes.run');
  setStatus(text);
  box.disabled = false;
  box.focus();
}

/** Follows a run's events (replayed from the start), reconnecting after a dropped connection. */
async function follow(runId) {
  const view = {};
  let last = 0;
  box.disabled = true;
  setStatus('Working…');
  for (let attempt = 0; attempt < 30; attempt += 1) {
    let response;
    try {
      response = await fetch(`/v1/runs/${runId}/events`, {
        headers: headers({
          accept: 'text/event-stream',
          ...(last > 0 ? { 'last-event-id': String(last) } : {}),
        }),
      });
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    if (response.status === 404) {
      finishRun('Ready (that run is no longer known)');
      return;
    }
    if (!response.ok || response.body === null) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let ended = false;
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      buffer += value;
      let split = buffer.indexOf('\n\n');
      while (split >= 0) {
        const block = buffer.slice(0, split);
        buffer = buffer.slice(split + 2);
        split = buffer.indexOf('\n\n');
        const fields = {};
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':');
          if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.data === undefined) continue;
        last = Number(fields.id);
        render(view, runId, fields.event, JSON.parse(fields.data));
        if (fields.event === 'done' || fields.event === 'failed') ended = true;
      }
    }
    if (ended) return;
  }
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const text = box.value.trim();
  if (text === '') return;
  box.value = '';
  add('user', text);
  const result = await post('/v1/runs', { input: text, session_id: sessionId(), attended: true });
  if (!result.ok) {
    add('assistant error', `⚠️ ${result.data?.error?.message ?? `HTTP ${result.status}`}`);
    if (result.status === 401) store.removeItem('hermes.key');
    return;
  }
  store.setItem('hermes.run', JSON.stringify({ id: result.data.id, text }));
  void follow(result.data.id);
});

box.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    form.requestSubmit();
  }
});

document.getElementById('new-chat').addEventListener('click', () => {
  store.removeItem('hermes.session');
  store.removeItem('hermes.run');
  log.replaceChildren();
  setStatus('Ready');
  box.disabled = false;
});

// After a reload: the run that was going on is replayed from its first event and followed on.
const running = store.getItem('hermes.run');
if (running !== null) {
  const { id, text } = JSON.parse(running);
  add('user', text);
  void follow(id);
}
