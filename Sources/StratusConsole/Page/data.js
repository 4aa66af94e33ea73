// Data: each model's items, read, edited and deleted through the API as the chosen identity.
import { api, graphql } from './api.js';

export class DataPage {
  constructor(identity) {
    this.identity = identity;
    this.models = null;
    this.model = null;
    this.pages = [null]; // the nextToken of each page read, the first page's being null
    this.items = [];
    this.current = 0;
    this.list = document.getElementById('models');
    this.table = document.getElementById('data-table');
    this.status = document.getElementById('data-status');
    this.filter = document.getElementById('data-filter');
    this.limit = document.getElementById('data-limit');
    this.next = document.getElementById('data-next');
    this.first = document.getElementById('data-first');
    this.editor = document.getElementById('data-editor');
    this.editInput = document.getElementById('data-edit-input');
    document.getElementById('data-query').addEventListener('submit', (event) => {
      event.preventDefault();
      this.pages = [null];
      this.load();
    });
    this.next.addEventListener('click', () => this.load(this.pages.length - 1));
    this.first.addEventListener('click', () => {
      this.pages = [null];
      this.load();
    });
    this.editor.addEventListener('submit', (event) => {
      event.preventDefault();
      this.save();
    });
    document.getElementById('data-edit-cancel').addEventListener('click', () => { this.editor.hidden = true; });
  }

  async shown() {
    if (this.models) return;
    try {
      ({ models: this.models } = await api('models'));
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    this.list.replaceChildren(...this.models.filter((m) => m.list).map((model) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = model.name;
      button.dataset.testid = `model-${model.name}`;
      button.setAttribute('aria-pressed', 'false');
      button.addEventListener('click', () => this.open(model));
      const item = document.createElement('li');
      item.append(button);
      return item;
    }));
    if (this.models.length === 0) this.report('The schema has no model with a list query.', false);
  }

  open(model) {
    this.model = model;
    for (const button of this.list.querySelectorAll('button')) {
      button.setAttribute('aria-pressed', String(button.dataset.testid === `model-${model.name}`));
    }
    this.pages = [null];
    this.editor.hidden = true;
    this.load();
  }

  get selection() {
    return [...this.model.fields, ...this.model.syncFields].join(' ');
  }

  /** Reads page `index` (its nextToken in this.pages) with the filter and page size. */
  async load(index = 0) {
    const model = this.model;
    if (!model) return;
    let filter = null;
    const text = this.filter.value.trim();
    if (text !== '') {
      try {
        filter = JSON.parse(text);
      } catch (error) {
        this.report(`The filter is not JSON: ${error.message}`, true);
        return;
      }
    }
    const query = `query ListItems($filter: ${model.filterInput}, $limit: Int, $nextToken: String) {
  ${model.list}(filter: $filter, limit: $limit, nextToken: $nextToken) { items { ${this.selection} } nextToken }
}`;
    const variables = { filter, limit: Number(this.limit.value) || 25, nextToken: this.pages[index] };
    const answer = await this.request(query, variables);
    if (!answer) return;
    const page = answer.data?.[model.list];
    this.items = page?.items?.filter((item) => item) ?? [];
    this.current = index;
    this.pages = this.pages.slice(0, index + 1);
    if (page?.nextToken) this.pages.push(page.nextToken);
    this.next.disabled = !page?.nextToken;
    this.first.disabled = index === 0;
    this.render();
    const errors = answer.errors?.map((e) => e.message).join('; ');
    this.report(`${model.name}: ${this.items.length} items on page ${index + 1}${errors ? `; errors: ${errors}` : ''}`,
      Boolean(errors));
  }

  /** Runs a request as the chosen identity; the answer, or null after reporting a failure. */
  async request(query, variables) {
    const identity = this.identity();
    try {
      const { status, response } = await graphql(query, variables, identity);
      if (status !== 200 || (!response.data && response.errors)) {
        this.report(`${status}: ${response.errors?.map((e) => e.message).join('; ') ?? JSON.stringify(response)}`, true);
        return null;
      }
      return response;
    } catch (error) {
      this.report(error.message, true);
      return null;
    }
  }

  render() {
    const columns = [...this.model.fields, ...this.model.syncFields];
    const head = document.createElement('tr');
    for (const column of [...columns, '']) {
      const cell = document.createElement('th');
      cell.scope = 'col';
      cell.textContent = column;
      head.append(cell);
    }
    this.table.tHead.replaceChildren(head);
    this.table.tBodies[0].replaceChildren(...this.items.map((item) => {
      const row = document.createElement('tr');
      row.dataset.testid = 'data-row';
      if (item._deleted) row.classList.add('deleted');
      for (const column of columns) {
        const cell = document.createElement('td');
        cell.dataset.field = column;
        const value = item[column];
        cell.textContent = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
        row.append(cell);
      }
      const actions = document.createElement('td');
      actions.className = 'actions-cell';
      if (this.model.update && !item._deleted) actions.append(this.button('Edit', 'data-edit', () => this.edit(item)));
      if (this.model.delete && !item._deleted) actions.append(this.button('Delete', 'data-delete', () => this.remove(item)));
      row.append(actions);
      return row;
    }));
  }

  button(label, testid, action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.textContent = label;
    button.dataset.testid = testid;
    button.addEventListener('click', action);
    return button;
  }

  key(item) {
    return Object.fromEntries(this.model.primaryKey.map((name) => [name, item[name]]));
  }

  edit(item) {
    this.editing = item;
    const fields = Object.fromEntries(this.model.editableFields.map((name) => [name, item[name] ?? null]));
    document.getElementById('data-edit-key').textContent = JSON.stringify(this.key(item));
    this.editInput.value = JSON.stringify(fields, null, 2);
    this.editor.hidden = false;
    this.editInput.focus();
  }

  /** The update mutation with the edited fields, the item's key and the _version it was read at. */
  async save() {
    let changes;
    try {
      changes = JSON.parse(this.editInput.value);
    } catch (error) {
      this.report(`The item is not JSON: ${error.message}`, true);
      return;
    }
    const input = { ...changes, ...this.key(this.editing) };
    if (this.model.syncFields.length) input._version = this.editing._version;
    const mutation = `mutation UpdateItem($input: ${this.model.updateInput}!) { ${this.model.update}(input: $input) { ${this.selection} } }`;
    const answer = await this.request(mutation, { input });
    if (!answer) return;
    if (answer.errors?.length) {
      this.report(answer.errors.map((e) => e.message).join('; '), true);
      return;
    }
    this.editor.hidden = true;
    await this.load(this.current);
  }

  async remove(item) {
    if (!window.confirm(`Delete ${JSON.stringify(this.key(item))}?`)) return;
    const input = this.key(item);
    if (this.model.syncFields.length) input._version = item._version;
    const mutation = `mutation DeleteItem($input: ${this.model.deleteInput}!) { ${this.model.delete}(input: $input) { ${this.selection} } }`;
    const answer = await this.request(mutation, { input });
    if (!answer) return;
    if (answer.errors?.length) {
      this.report(answer.errors.map((e) => e.message).join('; '), true);
      return;
    }
    await this.load(this.current);
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }
}
