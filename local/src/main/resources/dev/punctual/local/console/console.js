// The Punctual console's pages. Every value from the API enters the page through h(), as text
// nodes and attribute values, never as markup: a key such as <img src=x onerror=alert(1)> shows as text.
'use strict';

const main = document.getElementById('main');
const page = document.body.dataset.page;
const params = new URLSearchParams(location.search);
/** Server time minus browser time, so countdowns follow the runtime's clock. */
let clockSkew = 0;

function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.substring(2), value);
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

function replace(...children) {
  main.replaceChildren(...children.filter(child => child !== null && child !== undefined));
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  if (body.now) clockSkew = body.now - Date.now();
  return body;
}

function now() {
  return Date.now() + clockSkew;
}

function time(millis) {
  return millis === null || millis === undefined ? '' : new Date(millis).toISOString().replace('T', ' ').replace('.000Z', '').replace('Z', '');
}

/** Time left as the CLI's `pending` prints it. */
function timeLeft(millis) {
  if (millis <= 0) return 'due';
  const seconds = Math.floor(millis / 1000);
  if (seconds < 60) return (millis / 1000).toFixed(1) + 's';
  if (seconds < 3600) return Math.floor(seconds / 60) + 'm' + String(seconds % 60).padStart(2, '0') + 's';
  if (seconds < 86400) return Math.floor(seconds / 3600) + 'h' + String(Math.floor(seconds % 3600 / 60)).padStart(2, '0') + 'm';
  return Math.floor(seconds / 86400) + 'd' + String(Math.floor(seconds % 86400 / 3600)).padStart(2, '0') + 'h';
}

function executionLink(arn, label) {
  return arn ? h('a', { href: '/executions/' + encodeURIComponent(arn), class: 'mono' }, label || arn.split(':').pop()) : '';
}

function table(headers, rows) {
  return h('table', {},
    h('thead', {}, h('tr', {}, headers.map(([label, cls]) => h('th', { class: cls }, label)))),
    h('tbody', {}, rows));
}

function failure(error) {
  return h('div', { class: 'error' }, 'The console could not load this page: ', error.message);
}

/** Runs render now and every interval ms, showing an error instead of the page when it fails. */
function every(interval, render) {
  const run = () => render().catch(error => replace(h('h1', {}, document.title), failure(error)));
  run();
  setInterval(run, interval);
}

// ---------------------------------------------------------------- overview

let lagChart = null;

function tile(label, value, bad) {
  return h('div', { class: 'tile' + (bad ? ' bad' : ''), 'data-counter': label }, h('div', { class: 'value' }, value),
    h('div', { class: 'label' }, label));
}

async function overview() {
  const body = await api('/api/overview');
  const c = body.counters;
  const chart = lagChart ? lagChart.root.parentNode : h('div', { id: 'chart' });
  chart.dataset.points = String(body.lag.length);
  replace(
    h('h1', {}, 'Overview'),
    h('div', { class: 'tiles' },
      tile('pending', body.pending),
      tile('expired in the last minute', body.expiredLastMinute),
      tile('early (must stay 0)', c.early, c.early > 0),
      tile('missed (overdue > 60 s)', c.missed, c.missed > 0),
      tile('superseded', c.superseded),
      tile('failed executions', c.failedExecutions, c.failedExecutions > 0),
      tile('dead letters', c.deadLetters, c.deadLetters > 0)),
    h('h2', {}, 'Lag per second, last 10 minutes (ms after the TTL)'),
    chart,
    h('h2', {}, 'Watched tables'),
    body.tables.length === 0 ? h('p', { class: 'muted' }, 'No table with a stream and TTL yet; the runtime looks every second.')
      : table([['Table'], ['TTL attribute'], ['Mode'], ['Stream backlog', 'num'], ['Pending', 'num']],
        body.tables.map(t => h('tr', {},
          h('td', {}, h('a', { href: '/pending?table=' + encodeURIComponent(t.name) }, t.name)),
          h('td', { class: 'mono' }, t.ttlAttribute), h('td', {}, t.mode),
          h('td', { class: 'num' }, t.backlog), h('td', { class: 'num' }, t.pending)))),
    h('p', { class: 'muted' }, 'Mode ', body.mode, '. ', c.expired, ' expired since the console started.'));
  drawLag(chart, body.lag);
}

function drawLag(container, lag) {
  const end = Math.floor(now() / 1000);
  // Seconds with no delete stay empty (null), so the lines break instead of drawing zeros.
  const xs = [], p50 = [], p99 = [];
  const bySecond = new Map(lag.map(([second, a, b]) => [second, [a, b]]));
  for (let second = end - 599; second <= end; second++) {
    xs.push(second);
    const point = bySecond.get(second);
    p50.push(point ? point[0] : null);
    p99.push(point ? point[1] : null);
  }
  const data = [xs, p50, p99];
  if (typeof uPlot === 'undefined') {
    container.textContent = 'The chart library did not load.';
    return;
  }
  if (lagChart) {
    lagChart.setData(data);
    return;
  }
  lagChart = new uPlot({
    width: Math.min(1240, main.clientWidth - 20), height: 240,
    scales: { x: { time: true }, y: { range: (u, min, max) => [0, Math.max(100, max * 1.1)] } },
    series: [{}, { label: 'p50', stroke: '#0969da', width: 2, points: { show: true, size: 6 } },
      { label: 'p99', stroke: '#cf222e', width: 2, points: { show: true, size: 6 } }],
    axes: [{}, { label: 'ms', size: 60 }],
  }, data, container);
}

// ---------------------------------------------------------------- pending

let pendingRows = [];

async function pending() {
  const query = new URLSearchParams();
  const selected = params.get('table') || '';
  if (selected) query.set('table', selected);
  if (params.get('after')) query.set('after', params.get('after'));
  const body = await api('/api/pending?' + query);
  const filter = h('select', { id: 'table-filter', onchange: event => {
    location.search = event.target.value ? '?table=' + encodeURIComponent(event.target.value) : '';
  } }, h('option', { value: '' }, 'every table'),
  body.tables.map(name => h('option', { value: name, selected: name === selected }, name)));
  const windowed = body.mode === 'windowed';
  pendingRows = body.items.map(item => {
    const countdown = h('td', { class: 'num countdown', 'data-expire-at': item.expireAt }, timeLeft(item.expireAt - now()));
    return h('tr', { class: 'pending-row' },
      h('td', { class: 'mono' }, time(item.expireAt)), countdown,
      h('td', {}, item.table), h('td', { class: 'mono key' }, item.key), h('td', { class: 'mono' }, item.ttl),
      h('td', {}, executionLink(item.executionArn, windowed ? item.bucket : item.execution)));
  });
  const next = body.next
    ? h('a', { id: 'next-page', href: '/pending?' + new URLSearchParams({ ...(selected ? { table: selected } : {}), after: body.next }) }, 'Next page →')
    : null;
  replace(
    h('h1', {}, 'Pending expirations'),
    h('div', { class: 'controls' }, h('label', {}, 'Table ', filter),
      h('span', { id: 'pending-total' }, body.total, ' pending'),
      params.get('after') ? h('a', { href: '/pending' + (selected ? '?table=' + encodeURIComponent(selected) : '') }, '← First page') : null,
      next),
    body.items.length === 0 ? h('p', { class: 'muted' }, 'Nothing is pending.')
      : table([['Expires at (UTC)'], ['In', 'num'], ['Table'], ['Key'], ['TTL'], [windowed ? 'Bucket' : 'Execution']], pendingRows));
}

function tickCountdowns() {
  for (const cell of document.querySelectorAll('td.countdown')) {
    cell.textContent = timeLeft(Number(cell.dataset.expireAt) - now());
  }
}

// ---------------------------------------------------------------- recent expiries

async function expired() {
  const body = await api('/api/expired?limit=200');
  replace(
    h('h1', {}, 'Recent expiries'),
    body.items.length === 0 ? h('p', { class: 'muted' }, 'Nothing has expired since the console started.')
      : table([['Deleted at (UTC)'], ['Table'], ['Key'], ['TTL'], ['Lag', 'num'], ['Outcome'], ['Error and cause']],
        body.items.map(item => h('tr', { class: 'expired-row' },
          h('td', { class: 'mono' }, time(item.at)), h('td', {}, item.table), h('td', { class: 'mono key' }, item.key),
          h('td', { class: 'mono' }, item.ttl), h('td', { class: 'num lag' }, item.lagMs === null ? '' : item.lagMs + ' ms'),
          h('td', { class: 'outcome outcome-' + item.outcome }, item.outcome),
          h('td', {}, item.error ? h('div', { class: 'mono' }, item.error) : null,
            item.cause ? h('div', { class: 'muted' }, item.cause) : null,
            executionLink(item.executionArn))))));
}

// ---------------------------------------------------------------- expiry events

async function expiryEvents() {
  const body = await api('/api/events?limit=200');
  replace(
    h('h1', {}, 'Expiry events'),
    h('p', { class: 'muted' }, body.publishing
      ? ['ItemExpired events the handler published to ', h('span', { class: 'mono' }, body.endpoint),
        '; consumers deduplicate by id. Also: punctual events --follow.']
      : 'The handler does not publish expiry events (--no-expiry-events).'),
    body.items.length === 0 ? h('p', { class: 'muted' }, 'No expiry events yet.')
      : table([['Deleted at (UTC)'], ['Table'], ['Key'], ['TTL'], ['Lag', 'num'], ['Expired by'], ['Old image'], ['Id']],
        body.items.map(item => h('tr', { class: 'event-row' },
          h('td', { class: 'mono' }, item.deletedAt.replace('T', ' ').replace('Z', '')), h('td', {}, item.table),
          h('td', { class: 'mono key' }, item.key), h('td', { class: 'mono' }, item.ttl),
          h('td', { class: 'num lag' }, item.lagMs === null ? '' : item.lagMs + ' ms'),
          h('td', { class: 'expired-by' }, item.expiredBy), h('td', { class: 'muted' }, item.oldImage),
          h('td', { class: 'mono event-id' }, item.id)))));
}

// ---------------------------------------------------------------- executions

async function executions() {
  const status = params.get('status') || 'ALL';
  const query = new URLSearchParams({ status, limit: '100' });
  if (params.get('stateMachine')) query.set('stateMachine', params.get('stateMachine'));
  if (params.get('next')) query.set('next', params.get('next'));
  const body = await api('/api/executions?' + query);
  const go = changes => {
    const next = new URLSearchParams({ status, stateMachine: body.stateMachineArn, ...changes });
    location.search = '?' + next;
  };
  replace(
    h('h1', {}, 'Executions'),
    h('div', { class: 'controls' },
      h('label', {}, 'Status ', h('select', { id: 'status-filter', onchange: e => go({ status: e.target.value }) },
        ['ALL', 'RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'].map(s => h('option', { value: s, selected: s === status }, s)))),
      body.stateMachines.length > 1 ? h('label', {}, 'State machine ', h('select', { onchange: e => go({ stateMachine: e.target.value }) },
        body.stateMachines.map(arn => h('option', { value: arn, selected: arn === body.stateMachineArn }, arn.split(':').pop())))) : null,
      body.next ? h('a', { href: '/executions?' + new URLSearchParams({ status, stateMachine: body.stateMachineArn, next: body.next }) }, 'Next page →') : null),
    body.items.length === 0 ? h('p', { class: 'muted' }, 'No executions.')
      : table([['Name'], ['Status'], ['Started (UTC)'], ['Stopped (UTC)']], body.items.map(e => h('tr', {},
        h('td', {}, executionLink(e.executionArn, e.name)), h('td', { class: 'status-' + e.status }, e.status),
        h('td', { class: 'mono' }, time(e.startDate)), h('td', { class: 'mono' }, time(e.stopDate))))));
}

async function execution() {
  const arn = decodeURIComponent(location.pathname.substring('/executions/'.length));
  const body = await api('/api/execution?arn=' + encodeURIComponent(arn));
  replace(
    h('h1', {}, 'Execution ', h('span', { class: 'mono' }, body.name)),
    h('p', {}, h('span', { id: 'execution-status', class: 'status-' + body.status }, body.status),
      ' · started ', time(body.startDate), body.stopDate ? ' · stopped ' + time(body.stopDate) : '',
      ' · ', h('span', { class: 'muted mono' }, body.stateMachineArn.split(':').pop())),
    body.error || body.cause ? h('div', { class: 'error', id: 'execution-error' },
      h('div', { class: 'mono' }, h('strong', {}, 'Error: '), body.error || ''),
      h('div', {}, h('strong', {}, 'Cause: '), body.cause || '')) : null,
    h('div', { class: 'columns' },
      h('div', {}, h('h2', {}, 'Graph'), graph(body.definition, body.events, body.marked)),
      h('div', {}, h('h2', {}, 'Input'), h('pre', { id: 'execution-input' }, pretty(body.input)),
        h('h2', {}, 'Output'), h('pre', { id: 'execution-output' }, body.output === null ? (body.status === 'RUNNING' ? '(none yet)' : '(none)') : pretty(body.output)))),
    runners(body),
    h('h2', {}, 'Event history'),
    table([['ID', 'num'], ['Type'], ['State'], ['Time (UTC)'], ['Details']], body.events.map(e => h('tr', { class: 'history-row' },
      h('td', { class: 'num' }, e.id), h('td', { class: 'event-type' }, e.type), h('td', {}, e.details && e.details.name || ''),
      h('td', { class: 'mono' }, time(e.timestamp)), h('td', { class: 'mono details' }, details(e.details))))));
  return body.status === 'RUNNING';
}

/**
 * A bucket execution's runner (an Express execution, which keeps no history): where the running one is, and
 * what its runs logged (errors only).
 */
function runners(body) {
  if ((!body.runners || body.runners.length === 0) && (!body.runnerLog || body.runnerLog.length === 0)) return null;
  return h('div', { id: 'execution-runners' },
    h('h2', {}, 'Runner'),
    body.runners.length === 0 ? h('p', { class: 'muted' }, 'No runner running now.')
      : table([['Runner (Express)'], ['Started (UTC)'], ['State'], ['Next step'], ['Second'], ['At (UTC)'], ['Items', 'num'],
          ['Expired', 'num'], ['Superseded', 'num']], body.runners.map(r => h('tr', { class: 'runner-row' },
          h('td', { class: 'mono' }, r.executionArn.split(':').slice(-2).join(':')), h('td', { class: 'mono' }, time(r.startDate)),
          h('td', {}, r.state), h('td', {}, r.runner ? r.runner.phase : 'begin'),
          h('td', { class: 'mono' }, r.runner ? time(r.runner.target * 1000) : ''), h('td', { class: 'mono' }, r.runner ? r.runner.at : ''),
          h('td', { class: 'num' }, r.runner ? r.runner.items : 0), h('td', { class: 'num' }, r.runner ? r.runner.expired : 0),
          h('td', { class: 'num' }, r.runner ? r.runner.superseded : 0)))),
    body.runnerLog.length === 0 ? null : h('div', {}, h('h3', {}, 'Runner log (errors)'),
      table([['Time (UTC)'], ['Type'], ['Details']], body.runnerLog.map(e => h('tr', {},
        h('td', { class: 'mono' }, time(Number(e.event_timestamp))), h('td', {}, e.type),
        h('td', { class: 'mono details' }, details(e.details)))))));
}

function pretty(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch (e) {
    return text;
  }
}

function details(object) {
  if (!object) return '';
  const rest = Object.entries(object).filter(([name]) => name !== 'name');
  return rest.map(([name, value]) => name + ': ' + (typeof value === 'string' ? value : JSON.stringify(value))).join('  ').substring(0, 400);
}

/** The state machine drawn from its ASL: states by their distance from StartAt, edges for every Next. */
function graph(definition, events, marked) {
  const states = definition.States || {};
  const edges = [];
  const successors = name => {
    const state = states[name] || {};
    const next = [];
    if (state.Next) next.push(state.Next);
    if (state.Default) next.push(state.Default);
    for (const choice of state.Choices || []) if (choice.Next) next.push(choice.Next);
    for (const katch of state.Catch || []) if (katch.Next) next.push(katch.Next);
    return [...new Set(next)];
  };
  const level = new Map([[definition.StartAt, 0]]);
  const queue = [definition.StartAt];
  while (queue.length) {
    const name = queue.shift();
    for (const next of successors(name)) {
      edges.push([name, next]);
      if (!level.has(next) && states[next]) {
        level.set(next, level.get(name) + 1);
        queue.push(next);
      }
    }
  }
  const rows = [];
  for (const [name, depth] of level) (rows[depth] = rows[depth] || []).push(name);
  const width = 170, height = 34, gapX = 24, gapY = 34;
  const columns = Math.max(...rows.map(r => r.length));
  const svgWidth = columns * (width + gapX) + gapX;
  const position = new Map();
  rows.forEach((names, depth) => names.forEach((name, i) => {
    const offset = (svgWidth - names.length * (width + gapX) + gapX) / 2;
    position.set(name, { x: offset + i * (width + gapX), y: gapY / 2 + depth * (height + gapY) });
  }));
  const visited = new Set(events.filter(e => e.type.endsWith('StateEntered')).map(e => e.details && e.details.name));
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  const make = (tag, attributes, text) => {
    const element = document.createElementNS(svgNs, tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
    if (text !== undefined) element.textContent = text;
    return element;
  };
  svg.setAttribute('class', 'graph');
  svg.setAttribute('width', svgWidth);
  svg.setAttribute('height', rows.length * (height + gapY) + gapY / 2);
  for (const [from, to] of edges) {
    const a = position.get(from), b = position.get(to);
    if (!a || !b) continue;
    svg.append(make('line', { x1: a.x + width / 2, y1: a.y + height, x2: b.x + width / 2, y2: b.y }));
  }
  for (const [name, { x, y }] of position) {
    const mark = marked && marked.state === name ? marked.as : (visited.has(name) ? 'visited' : '');
    const group = make('g', { class: 'state ' + mark, 'data-state': name, 'data-mark': mark });
    group.append(make('rect', { x, y, width, height, rx: 6 }));
    group.append(make('text', { x: x + 8, y: y + 14 }, name.length > 24 ? name.substring(0, 23) + '…' : name));
    group.append(make('text', { x: x + 8, y: y + 28, fill: '#656d76' }, (states[name].Type || '') + (mark ? ' · ' + mark : '')));
    svg.append(group);
  }
  return svg;
}

// ---------------------------------------------------------------- dead letters

async function deadLetters() {
  const body = await api('/api/dead-letters');
  replace(
    h('h1', {}, 'Dead letters'),
    h('p', { class: 'muted' }, 'Stream batches the handler failed on until the mapping gave up. Redrive hands a batch to the handler again.'),
    h('div', { id: 'redrive-result' }),
    body.items.length === 0 ? h('p', { class: 'muted' }, 'No dead letters.')
      : table([['Given up at (UTC)'], ['Table'], ['Condition'], ['Records', 'num'], ['Id'], ['']], body.items.map(letter => h('tr', {},
        h('td', { class: 'mono' }, time(letter.timestamp)), h('td', {}, letter.table), h('td', {}, letter.condition),
        h('td', { class: 'num' }, letter.records), h('td', { class: 'mono' }, letter.id),
        h('td', {}, letter.redrivenAt ? 'redriven ' + time(letter.redrivenAt) : h('button', { 'data-id': letter.id, onclick: redrive }, 'Redrive'))))));
}

async function redrive(event) {
  const id = event.target.dataset.id;
  event.target.disabled = true;
  const response = await fetch('/api/dead-letters/' + encodeURIComponent(id) + '/redrive', { method: 'POST' });
  const body = await response.json();
  const result = document.getElementById('redrive-result');
  result.replaceChildren(h('div', { class: body.succeeded ? 'tile' : 'error' }, body.succeeded
    ? 'Redriven: every record was handled.'
    : 'Redrive failed: ' + (body.error || (body.failedSequenceNumbers || []).join(', '))));
  await deadLetters().catch(() => {});
}

// ---------------------------------------------------------------- routing

function notFound() {
  replace(h('h1', {}, 'Not found'),
    h('p', {}, 'There is no page or execution at this address. Start from the ', h('a', { href: '/' }, 'overview'), '.'));
}

switch (page) {
  case 'overview': every(1000, overview); break;
  case 'pending': every(2000, pending); setInterval(tickCountdowns, 100); break;
  case 'expired': every(2000, expired); break;
  case 'events': every(2000, expiryEvents); break;
  case 'executions': every(3000, executions); break;
  case 'execution': {
    const refresh = () => execution().then(running => { if (running) setTimeout(refresh, 1000); })
      .catch(error => replace(h('h1', {}, 'Execution'), failure(error)));
    refresh();
    break;
  }
  case 'dead-letters': deadLetters().catch(error => replace(h('h1', {}, 'Dead letters'), failure(error))); break;
  default: notFound();
}
