// Functions: each invocation of the server's local functions, with its event, its result or
// error, the time it took and the lines the function wrote.
import { api } from './api.js';

/** How often the page reads the invocations while it is shown, in milliseconds. */
const refreshInterval = 2000;

function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

export class FunctionsPage {
  constructor() {
    this.timer = null;
    this.drawn = null;
    /** The invocations drawn before: a new one is drawn open, one seen before as the user left it. */
    this.seen = new Set();
    this.list = document.getElementById('functions-list');
    this.status = document.getElementById('functions-status');
    this.help = document.getElementById('functions-help');
  }

  shown() {
    this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (document.getElementById('page-functions').hidden) clearInterval(this.timer);
      else this.load();
    }, refreshInterval);
  }

  /** Reads every invocation kept: one still running, or whose lines arrive after its answer, is
   *  drawn again as it changes. Without functions the page says how to configure them. */
  async load() {
    let answer;
    try {
      answer = await api('functions');
    } catch (error) {
      const unconfigured = error.message.includes('runs no functions');
      this.help.hidden = !unconfigured;
      this.help.textContent = unconfigured ? error.message : '';
      this.status.textContent = unconfigured ? '' : error.message;
      this.status.classList.toggle('error', !unconfigured);
      return;
    }
    this.help.hidden = true;
    this.status.classList.remove('error');
    this.status.textContent = `Functions: ${answer.functions.join(', ')}. ${answer.invocations.length} invocations `
      + `(the server keeps the last ${answer.capacity}), newest first.`;
    const drawn = JSON.stringify(answer.invocations);
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    const open = new Set([...this.list.querySelectorAll('details[open]')].map((d) => d.dataset.sequence));
    this.list.replaceChildren(...answer.invocations.map((invocation) => this.row(invocation, open)));
    this.seen = new Set(answer.invocations.map((invocation) => String(invocation.sequence)));
  }

  row(invocation, open) {
    const time = invocation.durationMs === null ? 'running' : `${invocation.durationMs} ms`;
    const summary = element('summary', {},
      element('span', { className: 'function-name', textContent: invocation.function }),
      element('span', {
        className: `function-status ${invocation.status.toLowerCase()}`,
        textContent: invocation.status,
      }),
      element('span', { className: 'status', textContent: `${time} · ${invocation.time}` }));
    const details = element('details', {}, summary);
    details.dataset.testid = 'function-invocation';
    details.dataset.sequence = String(invocation.sequence);
    details.dataset.function = invocation.function;
    const sequence = String(invocation.sequence);
    details.open = open.has(sequence) || !this.seen.has(sequence);
    const outcome = invocation.error === null
      ? element('pre', { textContent: pretty(invocation.result) })
      : element('pre', {
        className: 'function-error',
        textContent: `${invocation.error.errorType ?? 'Lambda:Unhandled'}: ${invocation.error.message}\n`
          + invocation.error.detail,
      });
    outcome.dataset.testid = 'function-outcome';
    const lines = invocation.logLines.length === 0
      ? 'No lines attributed to this invocation.'
      : invocation.logLines.join('\n')
        + (invocation.droppedLogLines > 0 ? `\n… and ${invocation.droppedLogLines} more lines, not kept` : '');
    const log = element('pre', { textContent: lines });
    log.dataset.testid = 'function-log';
    details.append(
      element('p', { className: 'status', textContent: `Request id ${invocation.requestId}` }),
      element('div', { className: 'function-parts' },
        element('div', {}, element('h3', { textContent: 'Event' }), element('pre', { textContent: pretty(invocation.event) })),
        element('div', {}, element('h3', { textContent: invocation.error === null ? 'Result' : 'Error' }), outcome),
        element('div', {}, element('h3', { textContent: 'Log lines' }), log)),
    );
    return details;
  }
}
