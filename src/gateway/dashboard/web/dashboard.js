// The operator dashboard in the browser: reads /ui/api/overview every few seconds and shows it
// (approvals, sessions, queue and turn rates, recent failures, outbox, health);
// Approve once / Deny post the operator's decision. The token, when the gateway asks for one,
// is kept in the tab's session storage.

const store = window.sessionStorage;
const statusLine = document.getElementById('status');
const login = document.getElementById('login');
const STATES = {
  idle: 'Idle',
  running: 'Running',
  waiting_for_approval: 'Waiting for approval',
  waiting_for_input: 'Waiting for an answer',
};

function headers(extra = {}) {
  const token = store.getItem('hermes.dashboard');
  return { ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra };
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function when(ms, now) {
  const seconds = Math.round((ms - now) / 1000);
  const abs = Math.abs(seconds);
  const span =
    abs < 60 ? `${abs} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : `${Math.round(abs / 3600)} h`;
  return seconds >= 0 ? `in ${span}` : `${span} ago`;
}

async function decide(id, choice, button) {
  button.disabled = true;
  const response = await fetch(`/ui/api/approvals/${encodeURIComponent(id)}/decision`, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ choice }),
  });
  const body = await response.json().catch(() => ({}));
  const said = {
    recorded: choice === 'deny' ? 'Denied.' : 'Approved once.',
    already_decided: 'Someone decided it first.',
    expired: 'It had expired (denied).',
    not_found: 'It is no longer pending.',
  };
  statusLine.textContent = said[body.status] ?? `Not recorded (${body.status ?? response.status}).`;
  await refresh();
}

function showApprovals(approvals, now) {
  const box = document.getElementById('approvals');
  box.replaceChildren();
  if (approvals.length === 0) {
    box.append(el('p', 'None.', 'muted'));
    return;
  }
  for (const approval of approvals) {
    const card = el('article', undefined, 'card approval');
    card.setAttribute('aria-label', `Approval for ${approval.command}`);
    card.append(el('code', approval.command));
    card.append(el('p', `Why: ${approval.why.join('; ') || 'flagged as dangerous'}`));
    card.append(
      el(
        'p',
        `${approval.platform} · ${approval.chatId}${approval.userId ? ` · ${approval.userId}` : ''} · expires ${when(approval.expiresAt, now)}`,
        'muted',
      ),
    );
    const once = el('button', 'Approve once');
    once.type = 'button';
    once.addEventListener('click', () => void decide(approval.id, 'once', once));
    const deny = el('button', 'Deny', 'secondary');
    deny.type = 'button';
    deny.addEventListener('click', () => void decide(approval.id, 'deny', deny));
    card.append(once, deny);
    box.append(card);
  }
}

async function openTranscript(key) {
  const response = await fetch(`/ui/api/sessions/${encodeURIComponent(key)}/transcript`, {
    headers: headers(),
  });
  if (!response.ok) {
    statusLine.textContent = `No transcript (${response.status}).`;
    return;
  }
  const data = await response.json();
  const box = document.getElementById('transcript');
  box.replaceChildren();
  document.getElementById('transcript-key').textContent = key;
  if (data.messages.length === 0) box.append(el('p', 'No messages yet.', 'muted'));
  for (const message of data.messages) {
    if (message.role === 'tool') {
      const fold = el('details');
      fold.append(el('summary', `Result of ${message.tool ?? 'a tool'}`), el('div', message.text, 'msg'));
      box.append(fold);
      continue;
    }
    if (message.text !== '')
      box.append(
        el('div', `${message.role === 'user' ? 'User' : 'Agent'}: ${message.text}`, `msg ${message.role}`),
      );
    for (const call of message.toolCalls ?? []) {
      const fold = el('details');
      fold.append(el('summary', `Tool call: ${call.name}`), el('div', call.arguments, 'msg'));
      box.append(fold);
    }
  }
  const section = document.getElementById('transcript-box');
  section.hidden = false;
  document.getElementById('h-transcript').focus();
}

document.getElementById('transcript-close').addEventListener('click', () => {
  document.getElementById('transcript-box').hidden = true;
});

function showSessions(sessions, now) {
  const body = document.getElementById('sessions');
  body.replaceChildren();
  document.getElementById('sessions-caption').textContent =
    sessions.length === 0 ? 'No sessions yet.' : `${sessions.length} most recent`;
  for (const session of sessions) {
    const row = el('tr');
    row.append(
      el('td', session.platform),
      el('td', session.chat, 'id'),
      el('td', session.user ?? '—', 'wide'),
      el('td', when(session.lastActivity, now)),
      el('td', STATES[session.state] ?? session.state),
    );
    const cell = el('td');
    const open = el('button', 'Transcript', 'secondary');
    open.type = 'button';
    open.setAttribute('aria-label', `Transcript of ${session.platform} ${session.chat}`);
    open.addEventListener('click', () => void openTranscript(session.key));
    cell.append(open);
    row.append(cell);
    body.append(row);
  }
}

function seconds(value) {
  // A no-break space keeps the unit with its number in narrow columns.
  return value === null || value === undefined ? '—' : `${value.toFixed(2)}\u00a0s`;
}

function showHealth(checks, queue, turns) {
  const body = document.getElementById('health');
  body.replaceChildren();
  for (const check of checks) {
    const row = el('tr');
    row.append(
      el('td', check.name),
      el('td', check.ok ? 'OK' : 'Not ready', check.ok ? 'ok' : 'bad'),
      el('td', check.reason ?? '', 'id'),
    );
    body.append(row);
  }
  const figures = document.getElementById('figures');
  figures.replaceChildren();
  for (const [label, value] of [
    ['Waiting in queue', queue.depth],
    ['Turns running here', queue.activeTurns],
    ['Pending approvals', queue.pendingApprovals],
    ['Turns answered', (turns.byOutcome.final ?? 0) + (turns.byOutcome.answered ?? 0)],
    ['Turns failed', (turns.byOutcome.failed ?? 0) + (turns.byOutcome.interrupted ?? 0)],
    ['Mean turn time', seconds(turns.meanTurnSeconds)],
    ['Mean model request', seconds(turns.meanModelSeconds)],
    ['Deliveries given up', turns.failedDeliveries],
  ]) {
    const item = el('div');
    item.append(el('dt', label), el('dd', String(value)));
    figures.append(item);
  }
  const rates = document.getElementById('rates');
  rates.replaceChildren();
  for (const window of turns.recent) {
    const row = el('tr');
    row.append(
      el('th', window.window === '1m' ? '1 minute' : '5 minutes'),
      el('td', window.perMinute.toFixed(1)),
      el('td', seconds(window.p50)),
      el('td', seconds(window.p95)),
      el('td', seconds(window.p99)),
    );
    row.firstChild.scope = 'row';
    rates.append(row);
  }
}

function showFailures(failures, now) {
  const turns = document.getElementById('failures');
  turns.replaceChildren();
  // An empty list shows its caption only.
  turns.parentElement.tHead.hidden = failures.turns.length === 0;
  document.getElementById('failures-caption').textContent =
    failures.turns.length === 0
      ? 'No failed turns.'
      : `Failed turns, most recent first (${failures.turns.length})`;
  for (const failure of failures.turns) {
    const row = el('tr');
    const error = el('td');
    error.append(el('span', failure.code, 'code bad'), document.createTextNode(` ${failure.message}`));
    row.append(
      el('td', when(failure.at, now)),
      el('td', failure.platform),
      el('td', failure.sessionKey, 'id wide'),
      error,
    );
    turns.append(row);
  }
  const given = document.getElementById('given-up');
  given.replaceChildren();
  given.parentElement.tHead.hidden = failures.deliveries.length === 0;
  document.getElementById('given-up-caption').textContent =
    failures.deliveries.length === 0
      ? 'No deliveries given up on.'
      : `Deliveries given up on after their retries (${failures.deliveries.length})`;
  for (const entry of failures.deliveries) {
    const row = el('tr');
    row.append(
      el('td', entry.givenUpAt === undefined ? '—' : when(entry.givenUpAt, now)),
      el('td', entry.platform),
      el('td', KINDS[entry.kind] ?? entry.kind),
      el('td', entry.chatId, 'id'),
      el('td', String(entry.attempts)),
    );
    given.append(row);
  }
}

const KINDS = { final: 'Answer', failed: 'Failure notice', parked: 'Prompt' };

function showOutbox(entries, now) {
  const body = document.getElementById('outbox');
  body.replaceChildren();
  document.getElementById('outbox-caption').textContent =
    entries.length === 0 ? 'Nothing waiting to be delivered.' : `${entries.length} waiting to be delivered`;
  for (const entry of entries) {
    const row = el('tr');
    row.append(
      el('td', entry.platform),
      el('td', KINDS[entry.kind] ?? entry.kind),
      el('td', entry.chatId, 'id'),
      el('td', when(entry.createdAt, now)),
      el('td', String(entry.attempts)),
    );
    body.append(row);
  }
}

async function refresh() {
  const response = await fetch('/ui/api/overview', { headers: headers() }).catch(() => undefined);
  if (response === undefined) {
    statusLine.textContent = 'The gateway does not answer.';
    return;
  }
  if (response.status === 401) {
    login.hidden = false;
    statusLine.textContent = 'Sign in with the dashboard token.';
    return;
  }
  if (response.status === 403) {
    statusLine.textContent = 'No dashboard token is set: open this page from the gateway machine itself.';
    return;
  }
  const data = await response.json();
  login.hidden = true;
  showApprovals(data.approvals, data.now);
  showSessions(data.sessions, data.now);
  showHealth(data.health, data.queue, data.turns);
  showOutbox(data.outbox, data.now);
  showFailures(data.failures, data.now);
  if (statusLine.textContent === 'Loading…' || statusLine.textContent.startsWith('Sign in')) {
    statusLine.textContent = `Updated ${new Date(data.now).toLocaleTimeString()}`;
  }
}

login.addEventListener('submit', (event) => {
  event.preventDefault();
  store.setItem('hermes.dashboard', document.getElementById('token').value);
  void refresh();
});
void refresh();
setInterval(() => void refresh(), 3000);
