// The Explorer: a GraphQL request, its variables, and the API's answer as the chosen identity.
import { graphql } from './api.js';

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

export class Explorer {
  constructor(identity) {
    this.identity = identity;
    this.textarea = document.getElementById('explorer-editor');
    this.variables = document.getElementById('explorer-variables');
    this.result = document.getElementById('explorer-result');
    this.status = document.getElementById('explorer-status');
    this.editor = null;
    const CodeMirror = window.CodeMirror;
    if (CodeMirror?.defineSimpleMode) {
      defineGraphQLMode(CodeMirror);
      this.editor = CodeMirror.fromTextArea(this.textarea, {
        mode: 'graphql', lineNumbers: true, matchBrackets: true, tabSize: 2, indentUnit: 2,
        extraKeys: { 'Ctrl-Enter': () => this.run(), 'Cmd-Enter': () => this.run(), Tab: false, 'Shift-Tab': false },
      });
      // The hooks stay on what people type into.
      this.editor.getWrapperElement().dataset.testid = 'explorer-editor';
      this.textarea.removeAttribute('data-testid');
    }
    for (const field of [this.textarea, this.variables]) {
      field.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          this.run();
        }
      });
    }
    document.getElementById('explorer-run').addEventListener('click', () => this.run());
  }

  shown() {
    this.editor?.refresh();
  }

  /** Puts `query` and `variables` in the editor, to run them again. */
  load(query, variables) {
    if (this.editor) this.editor.setValue(query);
    else this.textarea.value = query;
    this.variables.value = JSON.stringify(variables, null, 2);
    this.result.textContent = '';
    this.report('Loaded from Requests: Run (Ctrl+Enter) to send it again.', false);
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
    const identity = this.identity();
    this.report(`Running as ${identity.label ?? identity.type}…`, false);
    this.result.textContent = '';
    try {
      const { status, response } = await graphql(this.query, variables, identity);
      this.result.textContent = JSON.stringify(response, null, 2);
      const failed = status !== 200 || (response.errors?.length ?? 0) > 0;
      this.report(`${status}${failed ? ' with errors' : ''}, as ${identity.label ?? identity.type}`, failed);
    } catch (error) {
      this.report(error.message, true);
    }
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }
}
