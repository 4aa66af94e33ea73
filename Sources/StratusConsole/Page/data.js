// Data: each model's items, read, created, edited and deleted through the API as the chosen
// identity; an item's history from the delta journal; made-up items from the schema.
import { api, graphql } from './api.js';

export class DataPage {
  /** Sorting reads at most this many items, in pages of sortPageSize (the API's largest page). */
  static sortLimit = 10000;
  static sortPageSize = 1000;

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
    this.editLabel = document.getElementById('data-edit-label');
    this.tombstones = document.getElementById('data-tombstones');
    this.history = document.getElementById('data-history');
    this.sortColumn = null;
    this.sortDescending = false;
    this.all = null; // every matching item read for the sort, in its order
    this.tombstones.addEventListener('change', () => {
      this.pages = [null];
      this.load();
    });
    document.getElementById('data-create').addEventListener('click', () => this.startCreate());
    document.getElementById('data-generate').addEventListener('click', () => this.generate());
    document.getElementById('data-history-close').addEventListener('click', () => { this.history.hidden = true; });
    document.getElementById('data-query').addEventListener('submit', (event) => {
      event.preventDefault();
      this.pages = [null];
      this.load();
    });
    this.next.addEventListener('click', () => {
      if (this.sortColumn) this.showSorted(this.current + 1);
      else this.load(this.pages.length - 1);
    });
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
    this.history.hidden = true;
    this.sortColumn = null;
    this.all = null;
    this.load();
  }

  get selection() {
    return [...this.model.fields, ...this.model.syncFields].join(' ');
  }

  /** The list filter typed in the page, with tombstones left out unless shown; undefined after
   *  reporting a filter that is not JSON. */
  get listFilter() {
    let filter = null;
    const text = this.filter.value.trim();
    if (text !== '') {
      try {
        filter = JSON.parse(text);
      } catch (error) {
        this.report(`The filter is not JSON: ${error.message}`, true);
        return undefined;
      }
    }
    // Tombstones are left out by the API's own filter, so that pages stay full.
    if (!this.tombstones.checked && this.model.syncFields.length) {
      const live = { _deleted: { ne: true } };
      filter = filter ? { and: [filter, live] } : live;
    }
    return filter;
  }

  get pageSize() {
    return Math.max(1, Number(this.limit.value) || 25);
  }

  /** One list request as the chosen identity: the page's items and next token, with the API's
   *  errors; null after reporting a failure. */
  async readPage(filter, limit, nextToken) {
    const model = this.model;
    const query = `query ListItems($filter: ${model.filterInput}, $limit: Int, $nextToken: String) {
  ${model.list}(filter: $filter, limit: $limit, nextToken: $nextToken) { items { ${this.selection} } nextToken }
}`;
    const answer = await this.request(query, { filter, limit, nextToken });
    if (!answer) return null;
    const page = answer.data?.[model.list];
    return {
      items: page?.items?.filter((item) => item) ?? [],
      nextToken: page?.nextToken ?? null,
      errors: answer.errors?.map((e) => e.message) ?? [],
    };
  }

  /** Shows page `index`. Unsorted, that is one list request from the page's nextToken (in
   *  this.pages). Sorted, the API has no order to ask for, so every item the filter matches is
   *  read, up to DataPage.sortLimit, and sorted here; the pages are then slices of that order. */
  async load(index = 0) {
    const model = this.model;
    if (!model) return;
    const filter = this.listFilter;
    if (filter === undefined) return;
    if (this.sortColumn) {
      await this.loadSorted(index, filter);
      return;
    }
    const page = await this.readPage(filter, this.pageSize, this.pages[index]);
    if (!page || model !== this.model) return;
    this.items = page.items;
    this.current = index;
    this.pages = this.pages.slice(0, index + 1);
    if (page.nextToken) this.pages.push(page.nextToken);
    this.next.disabled = !page.nextToken;
    this.first.disabled = index === 0;
    this.render();
    const errors = page.errors.join('; ');
    this.report(`${model.name}: ${this.items.length} items on page ${index + 1}${errors ? `; errors: ${errors}` : ''}`,
      Boolean(errors));
  }

  /** Reads every item the filter matches (at most DataPage.sortLimit), sorts them by the chosen
   *  column and shows page `index` of that order. */
  async loadSorted(index, filter) {
    const model = this.model;
    const all = [];
    const errors = [];
    let nextToken = null;
    let complete = true;
    this.report(`Reading every ${model.name} the filter matches to sort them by ${this.sortColumn}…`, false);
    do {
      const page = await this.readPage(filter, DataPage.sortPageSize, nextToken);
      if (!page || model !== this.model) return;
      all.push(...page.items);
      errors.push(...page.errors);
      nextToken = page.nextToken;
      if (nextToken && all.length >= DataPage.sortLimit) complete = false;
    } while (nextToken && complete);
    this.all = this.sortItems(all);
    this.allComplete = complete;
    this.allErrors = errors;
    this.showSorted(index);
  }

  /** Page `index` of the sorted items read by loadSorted. */
  showSorted(index) {
    const size = this.pageSize;
    const pageCount = Math.max(1, Math.ceil(this.all.length / size));
    const shown = Math.min(Math.max(index, 0), pageCount - 1);
    this.items = this.all.slice(shown * size, (shown + 1) * size);
    this.current = shown;
    this.next.disabled = shown + 1 >= pageCount;
    this.first.disabled = shown === 0;
    this.render();
    const order = `${this.sortColumn} ${this.sortDescending ? 'descending' : 'ascending'}`;
    const scope = this.allComplete
      ? `all ${this.all.length} matching items sorted by ${order}`
      : `the first ${this.all.length} matching items read sorted by ${order}; more match, narrow the filter to sort them all`;
    const errors = this.allErrors.join('; ');
    this.report(`${this.model.name}: ${this.items.length} items on page ${shown + 1} of ${pageCount}, ${scope}`
      + (errors ? `; errors: ${errors}` : ''), Boolean(errors) || !this.allComplete);
  }

  /** `items` in the chosen order; items without a value come last either way. */
  sortItems(items) {
    const column = this.sortColumn;
    const direction = this.sortDescending ? -1 : 1;
    const rank = (value) => (value === null || value === undefined ? 1 : 0);
    return [...items].sort((a, b) => {
      const [x, y] = [a[column], b[column]];
      if (rank(x) || rank(y)) return rank(x) - rank(y);
      if (typeof x === 'number' && typeof y === 'number') return (x - y) * direction;
      const [p, q] = [x, y].map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value)));
      return (p < q ? -1 : p > q ? 1 : 0) * direction;
    });
  }

  /** Sorts by `column` (a second click on the same column reverses the order), from the first
   *  page. Items already read for a sort are sorted again, not read again: Apply, First page and
   *  every edit read them afresh. */
  sortBy(column) {
    this.sortDescending = this.sortColumn === column ? !this.sortDescending : false;
    this.sortColumn = column;
    if (!this.all) {
      this.load(0);
      return;
    }
    this.all = this.sortItems(this.all);
    this.showSorted(0);
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
      if (column) {
        // Sorts every item the filter matches; the API itself lists by key.
        const sort = document.createElement('button');
        sort.type = 'button';
        sort.className = 'sort';
        sort.dataset.testid = `data-sort-${column}`;
        sort.title = `Sort by ${column}`;
        const arrow = this.sortColumn === column ? (this.sortDescending ? ' ▼' : ' ▲') : '';
        sort.textContent = column + arrow;
        sort.addEventListener('click', () => this.sortBy(column));
        cell.append(sort);
        if (this.sortColumn === column) cell.setAttribute('aria-sort', this.sortDescending ? 'descending' : 'ascending');
      }
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
      if (this.model.syncFields.length) actions.append(this.button('History', 'data-history', () => this.showHistory(item)));
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
    this.editLabel.replaceChildren('Item ', Object.assign(document.createElement('span'), {
      id: 'data-edit-key', textContent: JSON.stringify(this.key(item)),
    }), ' (JSON of the fields to change)');
    this.editInput.value = JSON.stringify(fields, null, 2);
    this.editor.hidden = false;
    this.editInput.focus();
  }

  /** Opens the editor on a new item: the create input's required fields, with values made up
   *  from the schema by the admin API (nothing is created until Save). */
  async startCreate() {
    const model = this.model;
    if (!model) {
      this.report('Choose a model first.', true);
      return;
    }
    if (!model.create) {
      this.report(`${model.name} has no create mutation.`, true);
      return;
    }
    let template = {};
    try {
      ({ items: [template] } = await api('generate', {
        model: model.name, count: 1, preview: true, requiredOnly: true, identity: this.identity(),
      }));
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    this.editing = null;
    this.editLabel.textContent = `New ${model.name} (JSON of its ${model.createInput}, sent with ${model.create})`;
    this.editInput.value = JSON.stringify(template, null, 2);
    this.editor.hidden = false;
    this.editInput.focus();
  }

  /** Sends the editor's JSON: the create mutation for a new item, else the item's update. */
  async save() {
    let changes;
    try {
      changes = JSON.parse(this.editInput.value);
    } catch (error) {
      this.report(`The item is not JSON: ${error.message}`, true);
      return;
    }
    if (!this.editing) {
      await this.create(changes);
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

  /** The create mutation with `input`, as the chosen identity; the API's errors as it answers them. */
  async create(input) {
    const model = this.model;
    const mutation = `mutation CreateItem($input: ${model.createInput}!) { ${model.create}(input: $input) { ${this.selection} } }`;
    const answer = await this.request(mutation, { input });
    if (!answer) return;
    if (answer.errors?.length) {
      this.report(answer.errors.map((e) => `${e.errorType ? `${e.errorType}: ` : ''}${e.message}`).join('; '), true);
      return;
    }
    this.editor.hidden = true;
    await this.load(this.current);
    this.report(`Created ${model.name} ${JSON.stringify(this.key(answer.data[model.create]))}.`, false);
  }

  /** Makes the chosen number of items from the schema, through the create mutation as the chosen identity. */
  async generate() {
    const model = this.model;
    if (!model) {
      this.report('Choose a model first.', true);
      return;
    }
    const count = Number(document.getElementById('data-generate-count').value);
    this.report(`Generating ${count} ${model.name} items…`, false);
    let answer;
    try {
      answer = await api('generate', { model: model.name, count, identity: this.identity() });
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    await this.load(this.current);
    const refused = answer.refusals.map((r) => `#${r.index + 1}: ${r.errors.map((e) => e.message).join('; ')}`);
    this.report(`Generated ${answer.created} of ${answer.requested} ${model.name} items (seed ${answer.seed})`
      + (refused.length ? `; refused ${refused.length}: ${refused.join(' | ')}` : '.'), refused.length > 0);
  }

  /** The item's versions from the delta journal, read by the admin API. */
  async showHistory(item) {
    const model = this.model;
    const key = this.key(item);
    const query = new URLSearchParams({ model: model.name, ...key });
    let history;
    try {
      history = await api(`history?${query}`);
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    document.getElementById('data-history-key').textContent = `${model.name} ${JSON.stringify(key)}`;
    const minutes = Math.round(history.retentionSeconds / 60);
    const note = document.getElementById('data-history-note');
    const first = history.versions[0]?.version;
    note.textContent = history.missesOlderVersions
      ? `The journal keeps each change for ${minutes} minutes: versions before ${first ?? history.currentVersion} `
        + 'are no longer in it.'
      : `Every version since the item was created (the journal keeps each change for ${minutes} minutes).`;
    document.getElementById('data-history-body').replaceChildren(...history.versions.map((version) => {
      const row = document.createElement('tr');
      row.dataset.testid = 'history-row';
      row.className = version.operation.toLowerCase();
      for (const [field, text] of [
        ['version', String(version.version ?? '')], ['time', version.time ?? ''], ['operation', version.operation],
        ['fields', JSON.stringify(version.fields)],
      ]) {
        const cell = document.createElement('td');
        cell.dataset.field = field;
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }));
    this.history.hidden = false;
    this.history.scrollIntoView({ block: 'nearest' });
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
