// Live: the open real-time connections with their subscriptions, and each committed write.
import { api } from './api.js';

/** How often the page asks for news while it is shown, in milliseconds. */
const refreshInterval = 1000;

export class LivePage {
  constructor() {
    this.events = [];
    this.last = 0;
    this.timer = null;
    this.connections = document.getElementById('live-connections');
    this.eventList = document.getElementById('live-events');
    this.status = document.getElementById('live-status');
    this.paused = document.getElementById('live-pause');
    document.getElementById('live-clear').addEventListener('click', () => {
      this.events = [];
      this.renderEvents();
    });
  }

  shown() {
    this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (document.getElementById('page-live').hidden) clearInterval(this.timer);
      else if (!this.paused.checked) this.load();
    }, refreshInterval);
  }

  async load() {
    let answer;
    try {
      answer = await api(`live?after=${this.last}`);
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    this.renderConnections(answer.connections);
    if (answer.events.length > 0) {
      this.last = answer.events[0].sequence;
      this.events = [...answer.events, ...this.events].slice(0, answer.capacity);
      this.renderEvents();
    }
    const subscriptions = answer.connections.reduce((sum, c) => sum + c.subscriptions.length, 0);
    // Deliveries per second between this answer and the one before.
    const now = performance.now();
    const rate = this.delivered === undefined ? 0
      : (answer.deliveries - this.delivered) / Math.max((now - this.readAt) / 1000, 0.001);
    this.delivered = answer.deliveries;
    this.readAt = now;
    this.report(`${answer.connections.length} connections, ${subscriptions} subscriptions, `
      + `${rate.toFixed(1)} deliveries/s (${answer.deliveries} in all); `
      + `${this.events.length} writes shown (the server keeps the last ${answer.capacity})`, false);
  }

  renderConnections(connections) {
    if (connections.length === 0) {
      const row = document.createElement('tr');
      const cell = document.createElement('td');
      cell.colSpan = 5;
      cell.className = 'empty';
      cell.textContent = 'No real-time connection is open.';
      row.append(cell);
      this.connections.replaceChildren(row);
      return;
    }
    this.connections.replaceChildren(...connections.flatMap((connection) => {
      const subscriptions = connection.subscriptions.length > 0 ? connection.subscriptions : [null];
      return subscriptions.map((subscription, index) => {
        const row = document.createElement('tr');
        row.dataset.testid = 'live-subscription';
        const cells = [
          index === 0 ? `#${connection.id} ${connection.identity ?? 'refused'}` : '',
          subscription ? subscription.field : 'no subscription',
          subscription ? (subscription.filter ? JSON.stringify(subscription.filter) : 'none') : '',
          subscription ? `${subscription.identity} (${subscription.authorizationMode})` : '',
          subscription ? new Date(subscription.started).toLocaleTimeString() : '',
        ];
        for (const value of cells) {
          const cell = document.createElement('td');
          cell.textContent = value;
          row.append(cell);
        }
        return row;
      });
    }));
  }

  renderEvents() {
    this.eventList.replaceChildren(...this.events.map((event) => {
      const item = document.createElement('li');
      item.dataset.testid = 'live-event';
      item.dataset.sequence = String(event.sequence);
      item.tabIndex = 0;
      const head = document.createElement('div');
      head.className = `live-head ${event.kind}`;
      head.textContent = `${new Date(event.time).toLocaleTimeString()} ${event.mutation ?? event.kind} ${event.model}`;
      const body = document.createElement('pre');
      body.textContent = JSON.stringify(event.item);
      item.append(head, body);
      return item;
    }));
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }
}
