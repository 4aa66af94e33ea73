// The Explorer: a GraphQL request, its variables, and the API's answer as the chosen identity;
// completion, checks and docs from the schema; a history of what was run; and subscriptions,
// whose events stream into the result pane over the API's real-time endpoint.
import { api, graphql } from './api.js';
import { Schema, check, completions, introspectionQuery, namedType, operationKind, typeText } from './schema.js';

/** A GraphQL mode for CodeMirror's simple-mode addon: keywords, names, variables, strings, comments. */
function defineGraphQLMode(CodeMirror) {
  CodeMirror.defineSimpleMode('graphql', {
    start: [
      { regex: /#.*/, token: 'comment' },
      { regex: /"""/, token: 'string', next: 'block' },
      { regex: /"(?:[^\\"]|\\.)*"/, token: 'string' },
      { regex: /\b(?:query|mutation|subscription|fragment|on)\b/, token: 'keyword' },
      { regex: /\b(?:true|false|null)\b/, token: 'atom' },
      { regex: /\$[_A-Za-z][_0-9A-Za-z]*/, token: 'variable-2' },
      { regex: /@[_A-Za-z][_0-9A-Za-z]*/, token: 'meta' },
      { regex: /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/, token: 'number' },
      { regex: /[_A-Za-z][_0-9A-Za-z]*/, token: 'variable' },
      { regex: /[{}()[\]]/, token: 'bracket' },
    ],
    block: [
      { regex: /.*?"""/, token: 'string', next: 'start' },
      { regex: /.*/, token: 'string' },
    ],
    meta: { lineComment: '#' },
  });
}

/** How many requests the history keeps, newest first, in the browser's localStorage. */
const historyLimit = 25;
const historyKey = 'stratus-console-explorer-history';

/** Base64 of UTF-8 text, as the real-time URL carries its header object. */
function base64(text) {
  return btoa(String.fromCodePoint(...new TextEncoder().encode(text)));
}

export class Explorer {
  /** `identity()` is who requests run as; `chooseIdentity(identity)` selects one in "Run as"
   *  (false when the console no longer lists it). */
  constructor(identity, chooseIdentity = () => false) {
    this.identity = identity;
    this.chooseIdentity = chooseIdentity;
    this.textarea = document.getElementById('explorer-editor');
    this.variables = document.getElementById('explorer-variables');
    this.headers = document.getElementById('explorer-headers');
    this.result = document.getElementById('explorer-result');
    this.status = document.getElementById('explorer-status');
    this.problems = document.getElementById('explorer-problems');
    this.stopButton = document.getElementById('explorer-stop');
    this.editor = null;
    this.schema = null;
    this.marks = [];
    this.socket = null;
    const CodeMirror = window.CodeMirror;
    if (CodeMirror?.defineSimpleMode) {
      defineGraphQLMode(CodeMirror);
      this.editor = CodeMirror.fromTextArea(this.textarea, {
        mode: 'graphql', lineNumbers: true, matchBrackets: true, tabSize: 2, indentUnit: 2,
        extraKeys: {
          'Ctrl-Enter': () => this.run(), 'Cmd-Enter': () => this.run(), Tab: false, 'Shift-Tab': false,
          'Ctrl-Space': () => this.complete(),
        },
      });
      // The hooks stay on what people type into.
      this.editor.getWrapperElement().dataset.testid = 'explorer-editor';
      this.textarea.removeAttribute('data-testid');
      let checking = null;
      this.editor.on('changes', () => {
        clearTimeout(checking);
        checking = setTimeout(() => this.checkDocument(), 300);
      });
      // Completion opens by itself after a name's first letter, a '{' or a '('.
      this.editor.on('inputRead', (editor, change) => {
        if (this.schema && CodeMirror.showHint && /^[_A-Za-z({]$/.test(change.text.join(''))
          && !editor.state.completionActive) this.complete();
      });
    }
    for (const field of [this.textarea, this.variables, this.headers]) {
      field.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          this.run();
        }
      });
    }
    document.getElementById('explorer-run').addEventListener('click', () => this.run());
    this.stopButton.addEventListener('click', () => this.stop('Stopped.'));
    document.getElementById('explorer-docs-search').addEventListener('input', (event) => this.searchDocs(event.target.value));
    document.getElementById('explorer-history-clear').addEventListener('click', () => {
      localStorage.removeItem(historyKey);
      this.showHistory();
    });
    this.showHistory();
  }

  shown() {
    this.editor?.refresh();
    if (!this.schema) this.loadSchema();
  }

  /** Reads the schema by introspection through the API, as the chosen identity. */
  async loadSchema() {
    const docs = document.getElementById('explorer-docs-body');
    try {
      const { response } = await graphql(introspectionQuery, {}, this.identity());
      if (!response.data?.__schema) {
        const message = response.errors?.map((e) => e.message).join('; ') ?? JSON.stringify(response);
        throw new Error(message);
      }
      this.schema = new Schema(response.data);
      this.showType(this.schema.roots.query);
      this.checkDocument();
    } catch (error) {
      docs.replaceChildren(Object.assign(document.createElement('p'), {
        className: 'status error',
        textContent: `The schema could not be read as ${this.identity().label ?? 'this identity'} (${error.message}). `
          + 'Choose an identity that may introspect the API, then open the Explorer again.',
      }));
    }
  }

  /** Puts `query` and `variables` in the editor, to run them again. */
  load(query, variables, from = 'Requests') {
    if (this.editor) this.editor.setValue(query);
    else this.textarea.value = query;
    this.variables.value = JSON.stringify(variables ?? {}, null, 2);
    this.result.textContent = '';
    this.report(`Loaded from ${from}: Run (Ctrl+Enter) to send it again.`, false);
  }

  get query() {
    return this.editor ? this.editor.getValue() : this.textarea.value;
  }

  async run() {
    let variables;
    try {
      variables = this.variables.value.trim() === '' ? {} : JSON.parse(this.variables.value);
    } catch (error) {
      this.report(`The variables are not JSON: ${error.message}`, true);
      return;
    }
    let headers;
    try {
      headers = this.headers.value.trim() === '' ? undefined : JSON.parse(this.headers.value);
    } catch (error) {
      this.report(`The headers are not JSON: ${error.message}`, true);
      return;
    }
    if (headers !== undefined
      && (headers === null || typeof headers !== 'object' || Array.isArray(headers)
        || Object.values(headers).some((value) => typeof value !== 'string'))) {
      this.report('The headers are a JSON object of strings: {"Idempotency-Key": "order-17"}.', true);
      return;
    }
    const identity = this.identity();
    if (identity.unavailable) {
      this.report(identity.unavailable, true);
      return;
    }
    if (identity.needsToken && !identity.token) {
      this.report(`Type the token to run as (${identity.label}) beside Run as.`, true);
      return;
    }
    this.remember(this.query, variables, identity);
    if (operationKind(this.query) === 'subscription') {
      await this.subscribe(this.query, variables, identity);
      return;
    }
    this.report(`Running as ${identity.label ?? identity.type}…`, false);
    this.result.textContent = '';
    try {
      const { status, response } = await graphql(this.query, variables, identity, headers);
      this.result.textContent = JSON.stringify(response, null, 2);
      const failed = status !== 200 || (response.errors?.length ?? 0) > 0;
      this.report(`${status}${failed ? ' with errors' : ''}, as ${identity.label ?? identity.type}`, failed);
      this.markServerErrors(response.errors ?? []);
      // The schema could not be read as the identity chosen first: try again as this one.
      if (!this.schema && !failed) this.loadSchema();
    } catch (error) {
      this.report(error.message, true);
    }
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }

  // MARK: - Completion and checks

  complete() {
    const CodeMirror = window.CodeMirror;
    if (!this.editor || !this.schema || !CodeMirror.showHint) return;
    this.editor.showHint({
      completeSingle: false,
      hint: (editor) => {
        const cursor = editor.getCursor();
        const before = editor.getRange({ line: 0, ch: 0 }, cursor);
        const word = /[_A-Za-z][_0-9A-Za-z]*$/.exec(before)?.[0] ?? '';
        const items = completions(this.schema, before)
          .filter((item) => item.text.startsWith(word) && item.text !== word);
        if (items.length === 0) return null;
        return {
          list: items.map((item) => ({
            text: item.text,
            displayText: `${item.text}  ${item.detail}`,
            className: 'explorer-hint',
          })),
          from: CodeMirror.Pos(cursor.line, cursor.ch - word.length),
          to: cursor,
        };
      },
    });
  }

  /** Marks what the light check finds: fields and arguments the schema does not have. */
  checkDocument() {
    if (!this.schema) return;
    this.clearMarks();
    this.showProblems(check(this.schema, this.query));
  }

  /** Marks the places the API's errors name (`locations`), after a run. */
  markServerErrors(errors) {
    const located = [];
    for (const error of errors) {
      for (const location of error.locations ?? []) {
        const line = location.line - 1;
        const ch = Math.max(0, location.column - 1);
        const text = this.editor ? this.editor.getLine(line) ?? '' : '';
        const length = /^[_A-Za-z][_0-9A-Za-z]*/.exec(text.slice(ch))?.[0].length || 1;
        located.push({ line, ch, length, message: error.message });
      }
    }
    if (located.length > 0) {
      this.clearMarks();
      this.showProblems(located);
    }
  }

  clearMarks() {
    for (const mark of this.marks) mark.clear();
    this.marks = [];
  }

  showProblems(problems) {
    this.problems.replaceChildren(...problems.map((problem) => {
      const item = document.createElement('li');
      item.dataset.testid = 'explorer-problem';
      const place = document.createElement('button');
      place.type = 'button';
      place.className = 'secondary';
      place.textContent = `${problem.line + 1}:${problem.ch + 1}`;
      place.addEventListener('click', () => {
        this.editor?.setCursor({ line: problem.line, ch: problem.ch });
        this.editor?.focus();
      });
      item.append(place, ` ${problem.message}`);
      return item;
    }));
    if (!this.editor) return;
    for (const problem of problems) {
      this.marks.push(this.editor.markText(
        { line: problem.line, ch: problem.ch },
        { line: problem.line, ch: problem.ch + problem.length },
        { className: 'explorer-error', attributes: { title: problem.message } },
      ));
    }
  }

  // MARK: - Docs

  /** Shows `name`'s fields (with their arguments) or values in the docs pane; each type links on. */
  showType(name) {
    const body = document.getElementById('explorer-docs-body');
    const type = this.schema?.types.get(name);
    if (!type) return;
    const heading = document.createElement('h4');
    heading.textContent = `${name} (${type.kind.toLowerCase().replace('_', ' ')})`;
    const parts = [heading];
    if (name !== this.schema.roots.query) {
      const roots = document.createElement('p');
      for (const [kind, root] of Object.entries(this.schema.roots)) {
        if (root) roots.append(this.typeLink(root, kind), ' ');
      }
      parts.unshift(roots);
    }
    if (type.description) parts.push(Object.assign(document.createElement('p'), { textContent: type.description }));
    const list = document.createElement('dl');
    for (const field of type.fields ?? type.inputFields ?? []) {
      const term = document.createElement('dt');
      term.dataset.testid = 'docs-field';
      term.append(field.name);
      if (field.args?.length) {
        term.append('(');
        field.args.forEach((arg, index) => {
          if (index > 0) term.append(', ');
          term.append(`${arg.name}: `, this.typeLink(namedType(arg.type), typeText(arg.type)));
        });
        term.append(')');
      }
      term.append(': ', this.typeLink(namedType(field.type), typeText(field.type)));
      list.append(term);
      if (field.description) list.append(Object.assign(document.createElement('dd'), { textContent: field.description }));
    }
    for (const value of type.enumValues ?? []) list.append(Object.assign(document.createElement('dt'), { textContent: value.name }));
    parts.push(list);
    body.replaceChildren(...parts);
  }

  typeLink(name, text) {
    const link = document.createElement('button');
    link.type = 'button';
    link.className = 'link';
    link.dataset.testid = 'docs-type';
    link.textContent = text;
    link.addEventListener('click', () => this.showType(name));
    return link;
  }

  /** Lists the types whose name holds `text`. */
  searchDocs(text) {
    if (!this.schema) return;
    if (text.trim() === '') {
      this.showType(this.schema.roots.query);
      return;
    }
    const needle = text.trim().toLowerCase();
    const list = document.createElement('ul');
    for (const name of this.schema.types.keys()) {
      if (name.startsWith('__') || !name.toLowerCase().includes(needle)) continue;
      const item = document.createElement('li');
      item.append(this.typeLink(name, name));
      list.append(item);
    }
    document.getElementById('explorer-docs-body').replaceChildren(list);
  }

  // MARK: - History

  history() {
    try {
      const stored = JSON.parse(localStorage.getItem(historyKey) ?? '[]');
      return Array.isArray(stored) ? stored : [];
    } catch {
      return [];
    }
  }

  /** Keeps a request run; an OIDC or Lambda token is not written to localStorage, only whose it was. */
  remember(query, variables, identity) {
    const { token, ...kept } = identity;
    const entry = { query, variables, identity: kept, time: new Date().toISOString() };
    const others = this.history().filter((old) =>
      !(old.query === query && JSON.stringify(old.variables) === JSON.stringify(variables)
        && old.identity?.label === identity.label));
    localStorage.setItem(historyKey, JSON.stringify([entry, ...others].slice(0, historyLimit)));
    this.showHistory();
  }

  showHistory() {
    const list = document.getElementById('explorer-history');
    const entries = this.history();
    if (entries.length === 0) {
      list.replaceChildren(Object.assign(document.createElement('li'), { className: 'status', textContent: 'Nothing run yet.' }));
      return;
    }
    list.replaceChildren(...entries.map((entry) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'history-entry';
      button.dataset.testid = 'history-entry';
      const name = /(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(entry.query)?.[1];
      const summary = name ?? entry.query.replace(/#[^\n]*/g, '').replace(/\s+/g, ' ').trim().slice(0, 60);
      button.textContent = summary;
      button.title = `${entry.query}\n\nas ${entry.identity?.label ?? entry.identity?.type}, ${entry.time}`;
      const who = document.createElement('span');
      who.className = 'status';
      who.textContent = ` as ${entry.identity?.label ?? entry.identity?.type}`;
      button.addEventListener('click', () => {
        const chosen = entry.identity ? this.chooseIdentity(entry.identity) : false;
        this.load(entry.query, entry.variables, 'History');
        if (entry.identity && !chosen) {
          this.report(`Loaded from History; ${entry.identity.label} is no longer listed, so Run as is unchanged.`, true);
        }
      });
      item.append(button, who);
      return item;
    }));
  }

  // MARK: - Subscriptions

  /**
   * Opens the real-time endpoint with the identity's header object (`POST /console/api/credentials`
   * signs or carries its credentials), starts the subscription, and writes each event into the
   * result pane until Stop.
   */
  async subscribe(query, variables, identity) {
    this.stop();
    this.result.textContent = '';
    const data = JSON.stringify({ query, variables });
    let connectHeaders;
    let startHeaders;
    try {
      ({ headers: connectHeaders } = await api('credentials', { identity, path: '/graphql/connect', body: '{}' }));
      ({ headers: startHeaders } = await api('credentials', { identity, path: '/graphql', body: data }));
    } catch (error) {
      this.report(error.message, true);
      return;
    }
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const url = `${scheme}://${location.host}/graphql/realtime?header=${encodeURIComponent(base64(JSON.stringify(connectHeaders)))}`
      + `&payload=${encodeURIComponent(base64('{}'))}`;
    const socket = new WebSocket(url, 'graphql-ws');
    this.socket = socket;
    this.stopButton.disabled = false;
    let events = 0;
    const id = crypto.randomUUID();
    this.report(`Connecting as ${identity.label ?? identity.type}…`, false);
    socket.addEventListener('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    socket.addEventListener('message', (message) => {
      if (socket !== this.socket) return;
      const frame = JSON.parse(message.data);
      switch (frame.type) {
        case 'connection_ack':
          socket.send(JSON.stringify({
            id, type: 'start', payload: { data, extensions: { authorization: startHeaders } },
          }));
          break;
        case 'start_ack':
          this.report(`Subscribed as ${identity.label ?? identity.type}: events appear below. Stop ends it.`, false);
          break;
        case 'data':
          events += 1;
          this.result.textContent += `${events > 1 ? '\n' : ''}# event ${events}\n${JSON.stringify(frame.payload, null, 2)}\n`;
          this.report(`Subscribed as ${identity.label ?? identity.type}: ${events} event${events === 1 ? '' : 's'}.`, false);
          break;
        case 'error':
        case 'connection_error': {
          const errors = frame.payload?.errors ?? [frame.payload];
          this.result.textContent += `${JSON.stringify(frame.payload, null, 2)}\n`;
          this.report(`Refused: ${errors.map((e) => e?.message ?? e?.errorType).join('; ')}`, true);
          this.markServerErrors(errors);
          this.stop();
          break;
        }
        case 'complete':
          this.stop('The subscription ended.');
          break;
        default:
          break; // keep-alives
      }
    });
    socket.addEventListener('close', (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.stopButton.disabled = true;
      if (event.code !== 1000) this.report(`The real-time connection closed (${event.code} ${event.reason}).`, true);
    });
  }

  /** Stops the running subscription, if any, and closes its connection. */
  stop(message) {
    const socket = this.socket;
    this.socket = null;
    this.stopButton.disabled = true;
    if (!socket) return;
    if (socket.readyState === WebSocket.OPEN) socket.close(1000, 'Stopped');
    else socket.close();
    if (message) this.report(message, false);
  }
}
