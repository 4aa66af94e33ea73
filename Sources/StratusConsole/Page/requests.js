// Requests: what the server answered last, with who asked and what authorization decided.
import { api } from './api.js';

/** How often the page asks for new requests while it is shown, in milliseconds. */
const refreshInterval = 2000;

/** The first field an operation selects, which names an anonymous operation: `createNote`. */
function rootField(query) {
  return query?.replace(/#.*$/gm, '').match(/\{\s*([_A-Za-z][_0-9A-Za-z]*)/)?.[1] ?? null;
}

export class RequestsPage {
  constructor(replay) {
    this.replay = replay;
    this.records = [];
    this.last = 0;
    this.timer = null;
    this.body = document.getElementById('requests-body');
    this.status = document.getElementById('requests-status');
    this.detail = document.getElementById('requests-detail');
    this.detailText = document.getElementById('requests-detail-text');
    this.replayButton = document.getElementById('requests-replay');
    this.selected = null;
    document.getElementById('requests-refresh').addEventListener('click', () => this.load());
    document.getElementById('requests-clear').addEventListener('click', () => {
      this.records = [];
      this.render();
    });
    this.replayButton.addEventListener('click', () => {
      if (this.selected?.query) this.replay(this.selected);
    });
  }

  shown() {
    this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (document.getElementById('page-requests').hidden) clearInterval(this.timer);
      else this.load();
    }, refreshInterval);
  }

  /** Reads the requests after the last one seen, newest first. */
  async load() {
    let answer;
    try {
      answer = await api(`requests?after=${this.last}`);
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    if (answer.requests.length > 0) {
      this.last = answer.requests[0].sequence;
      this.records = [...answer.requests, ...this.records].slice(0, answer.capacity);
      this.render();
    }
    this.report(`${this.records.length} requests (the server keeps the last ${answer.capacity})`, false);
  }

  render() {
    this.body.replaceChildren(...this.records.map((record) => this.row(record)));
  }

  row(record) {
    const row = document.createElement('tr');
    row.dataset.testid = 'request-row';
    row.dataset.sequence = String(record.sequence);
    row.tabIndex = 0;
    const outcome = record.decision.outcome;
    if (outcome === 'REFUSED') row.classList.add('refused');
    if (this.selected?.sequence === record.sequence) row.setAttribute('aria-selected', 'true');
    const time = new Date(record.time).toLocaleTimeString();
    const operation = [record.operationType, record.operationName ?? rootField(record.query)].filter(Boolean).join(' ') || '-';
    const cells = [
      time, record.transport === 'REALTIME' ? 'real-time' : `${record.method} ${record.path}`, operation,
      record.authorizationMode ?? '-', record.identity ?? '-', null, String(record.status), `${record.durationMs} ms`,
      record.resolverCount === null ? '-' : String(record.resolverCount), record.errors.map((e) => e.message).join('; '),
    ];
    for (const [index, value] of cells.entries()) {
      const cell = document.createElement('td');
      if (value === null) {
        cell.dataset.testid = 'request-decision';
        cell.className = `decision ${outcome.toLowerCase()}`;
        cell.textContent = outcome === 'REFUSED' ? `refused: ${record.decision.reasons.join(' ')}` : outcome.toLowerCase();
      } else {
        cell.textContent = value;
        if (index === 9) cell.className = 'errors';
      }
      row.append(cell);
    }
    const select = () => this.select(record, row);
    row.addEventListener('click', select);
    row.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        select();
      }
    });
    return row;
  }

  select(record, row) {
    this.selected = record;
    for (const other of this.body.querySelectorAll('tr')) other.removeAttribute('aria-selected');
    row.setAttribute('aria-selected', 'true');
    this.detail.hidden = false;
    this.detailText.textContent = JSON.stringify(record, null, 2);
    this.replayButton.disabled = !record.query;
    this.replayButton.title = record.query ? '' : 'The request was too large to keep its query.';
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }
}
