// Devices: what a device's DataStore or AppSync client database holds, read-only, as
// `stratus inspect` shows it.
import { api } from './api.js';

function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

function table(headers, rows, testid) {
  const head = element('thead', {}, element('tr', {}, ...headers.map((h) => element('th', { scope: 'col', textContent: h }))));
  const body = element('tbody', {}, ...rows.map((cells) => {
    const row = element('tr', {}, ...cells.map((cell) => element('td', { textContent: cell ?? '' })));
    if (testid) row.dataset.testid = testid;
    return row;
  }));
  return element('div', { className: 'table-wrap' }, element('table', {}, head, body));
}

function json(value) {
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

function section(title, ...content) {
  return element('section', { className: 'device-part' }, element('h3', { textContent: title }), ...content);
}

export class DevicesPage {
  constructor() {
    this.form = document.getElementById('devices-open');
    this.path = document.getElementById('devices-path');
    this.status = document.getElementById('devices-status');
    this.view = document.getElementById('devices-view');
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.open();
    });
    document.getElementById('devices-reload').addEventListener('click', () => this.open());
  }

  shown() {
    this.path.focus();
  }

  /** Inspects the database at the path typed, and shows it. */
  async open() {
    const path = this.path.value.trim();
    if (path === '') {
      this.report('Type the path of a DataStore database or of an AppSync client\'s offlineMutations.db.', true);
      return;
    }
    const interval = Number(document.getElementById('devices-interval').value);
    let answer;
    try {
      answer = await api('devices', { path, syncIntervalMinutes: interval > 0 ? interval : null });
    } catch (error) {
      this.view.replaceChildren();
      this.report(error.message, true);
      return;
    }
    this.report(`Read ${answer.path} at ${new Date().toLocaleTimeString()} (read-only).`, false);
    this.render(answer);
  }

  report(message, isError) {
    this.status.textContent = message;
    this.status.classList.toggle('error', isError);
  }

  render(answer) {
    if (answer.kind === 'dataStore') this.renderDataStore(answer.dataStore, answer.path);
    else this.renderAppSync(answer.appSyncClient, answer.path);
  }

  renderDataStore(store, path) {
    const pending = store.outbox.length;
    const parts = [
      element('p', {
        className: 'device-kind',
        textContent: `DataStore database ${path} (format ${store.format})`
          + (store.createdAt ? `, created ${store.createdAt}` : '')
          + (store.modelsVersion ? `, models version ${store.modelsVersion}` : ''),
      }),
      section('Models', table(['Model', 'Records', 'Deleted', 'Pending'],
        store.models.map((m) => [m.name, m.records === null ? 'no table' : String(m.records), String(m.deleted),
          String(m.pending)]),
        'device-model')),
      section(`Outbox: ${pending} pending mutation${pending === 1 ? '' : 's'}, sent in this order`,
        table(['#', 'Mutation', 'Model', 'Id', 'Made', 'In flight', 'Version', 'Condition', 'Record'],
          store.outbox.map((m) => [String(m.position), m.kind, m.modelName, m.modelId, m.createdAt,
            m.inFlight ? 'in flight' : '', m.version === null ? '' : String(m.version), json(m.condition),
            m.record === null ? json(m.unreadableRecord) : json(m.record)]),
          'device-mutation')),
      section('Sync state per model', table(['Model', 'Last sync', 'Next sync', 'Why', 'Sync expression'],
        store.sync.map((s) => [s.modelName, s.lastSyncAt ?? 'never', s.nextSync.kind, s.nextSync.reason,
          s.syncExpression ?? '']),
        'device-sync')),
      section(`Held records: ${store.held.length}`, table(['Held', 'Model', 'Id', 'Parent', 'Version', 'Record'],
        store.held.map((h) => [h.kind, h.modelName, h.modelId,
          h.parent === null ? '' : `${h.parent.modelName} ${h.parent.modelId}`,
          h.version === null ? '' : String(h.version), json(h.record)]),
        'device-held')),
    ];
    this.view.replaceChildren(...parts);
  }

  renderAppSync(store, path) {
    const parts = [element('p', { className: 'device-kind', textContent: `AppSync client database ${path}` })];
    if (store.offlineQueue !== null) {
      const queue = store.offlineQueue;
      parts.push(section(`Offline queue: ${queue.length} pending mutation${queue.length === 1 ? '' : 's'}, sent in `
        + 'this order', table(['#', 'Operation', 'Record key', 'Made', 'Attempts', 'Last error', 'Request'],
        queue.map((m) => [String(m.position), m.operationName, m.recordKey ?? '', m.createdAt, String(m.attempts),
          m.lastError ?? '', m.request === null ? json(m.unreadableRequest) : json(m.request)]),
        'device-mutation')));
    }
    if (store.cache !== null) {
      const { cache } = store;
      parts.push(section(`Query cache: ${cache.records} records (file version ${cache.fileVersion})`,
        table(['Optimistic layer of', 'Records'],
          cache.optimisticLayers.map((layer) => [layer.mutation, String(layer.records)]))));
    }
    if (store.deltaSync !== null) {
      parts.push(section('Delta sync', table(['Operation', 'Last sync'],
        store.deltaSync.map((d) => [d.operation, d.lastSync]), 'device-sync')));
    }
    this.view.replaceChildren(...parts);
  }
}
