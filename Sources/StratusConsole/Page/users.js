// Users: the local Cognito's users, what an administrator does to them, and the inbox of the
// codes the pool would have sent.
import { api } from './api.js';

/** How often the page reads the users and the inbox while it is shown, in milliseconds. */
const refreshInterval = 2000;

function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

function button(text, onClick, properties = {}) {
  const made = element('button', { type: 'button', textContent: text, ...properties });
  made.addEventListener('click', onClick);
  return made;
}

export class UsersPage {
  /** `changed` is called after each change, so that "Run as" lists the users as they are. */
  constructor(changed) {
    this.changed = changed;
    this.timer = null;
    this.groups = [];
    this.body = document.getElementById('users-body');
    this.inbox = document.getElementById('inbox-body');
    this.status = document.getElementById('users-status');
    this.content = document.getElementById('users-content');
    this.passwordForm = document.getElementById('users-password');
    this.passwordUser = document.getElementById('users-password-user');
    document.getElementById('users-create').addEventListener('submit', (event) => {
      event.preventDefault();
      this.create(event.target);
    });
    this.passwordForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.setPassword();
    });
    document.getElementById('users-password-cancel').addEventListener('click', () => {
      this.passwordForm.hidden = true;
    });
  }

  shown() {
    this.load();
    clearInterval(this.timer);
    this.timer = setInterval(() => {
      if (document.getElementById('page-users').hidden) clearInterval(this.timer);
      else this.load();
    }, refreshInterval);
  }

  /** Reads the users and the inbox. Without a local Cognito the page says how to have one. */
  async load() {
    let users;
    let inbox;
    try {
      [users, inbox] = await Promise.all([api('users'), api('inbox')]);
    } catch (error) {
      // Without a local Cognito there is nothing to show but how to have one.
      if (error.message.includes('--auth')) this.content.hidden = true;
      this.report(error.message, true);
      return;
    }
    this.content.hidden = false;
    // Drawn again only when they changed, so that a group being chosen stays chosen.
    const drawn = JSON.stringify(users);
    if (drawn !== this.drawnUsers) {
      this.drawnUsers = drawn;
      this.groups = users.groups;
      this.renderUsers(users.users);
    }
    const listed = JSON.stringify(inbox.codes);
    if (listed !== this.drawnInbox) {
      this.drawnInbox = listed;
      this.renderInbox(inbox.codes);
    }
    // A refused change stays on show until the next change.
    if (!this.refused) {
      this.report(`${users.users.length} users; ${inbox.codes.length} codes in the inbox `
        + `(the server keeps the last ${inbox.capacity})`, false);
    }
  }

  renderUsers(users) {
    // A row being used keeps its focus across a redraw: it is found again by user and control.
    const focused = document.activeElement;
    const focusKey = this.body.contains(focused) ? focused.dataset.key : undefined;
    const focusUser = focused?.closest?.('tr')?.dataset.username;
    this.body.replaceChildren(...users.map((user) => this.row(user)));
    if (focusKey !== undefined && focusUser !== undefined) {
      // A control that went (Confirm, once confirmed) hands the focus to the row's first one.
      const row = this.body.querySelector(`tr[data-username="${CSS.escape(focusUser)}"]`);
      (row?.querySelector(`[data-key="${CSS.escape(focusKey)}"]`) ?? row?.querySelector('button'))?.focus();
    }
  }

  row(user) {
    const row = element('tr');
    row.dataset.testid = 'user-row';
    row.dataset.username = user.username;
    if (!user.enabled) row.classList.add('disabled');
    const attributes = Object.entries(user.attributes).map(([name, value]) => `${name}=${value}`).join(', ');
    const cell = (field, ...children) => {
      const made = element('td', {}, ...children);
      made.dataset.field = field;
      return made;
    };
    const groups = cell('groups');
    for (const group of user.groups) {
      groups.append(element('span', { className: 'chip' }, group,
        button('×', () => this.change('groups', { username: user.username, group, member: false }),
          { className: 'chip-remove', title: `Remove ${user.username} from ${group}`,
            ariaLabel: `Remove ${user.username} from ${group}` })));
      groups.lastChild.lastChild.dataset.key = `remove-${group}`;
    }
    const others = this.groups.filter((group) => !user.groups.includes(group));
    if (others.length > 0) {
      const choice = element('select', { ariaLabel: `Group to add ${user.username} to` },
        ...others.map((group) => new Option(group)));
      choice.dataset.key = 'group';
      groups.append(element('span', { className: 'add-group' }, choice, button('Add', () =>
        this.change('groups', { username: user.username, group: choice.value, member: true }),
      { className: 'secondary', title: `Add ${user.username} to the chosen group` })));
      groups.lastChild.lastChild.dataset.key = 'add-group';
    }
    const actions = element('div', { className: 'row-actions' });
    const act = (text, action, key) => {
      const made = button(text, action, { className: 'secondary' });
      made.dataset.key = key;
      made.dataset.testid = `user-${key}`;
      return made;
    };
    if (user.status === 'UNCONFIRMED') {
      actions.append(act('Confirm', () => this.change('confirm', { username: user.username }), 'confirm'));
    }
    actions.append(
      user.enabled
        ? act('Disable', () => this.change('disable', { username: user.username }), 'disable')
        : act('Enable', () => this.change('enable', { username: user.username }), 'enable'),
      act('Set password…', () => this.askPassword(user.username), 'password'),
      act('Delete', () => this.remove(user.username), 'delete'),
    );
    const status = cell('status', user.status);
    status.dataset.testid = 'user-status';
    row.append(cell('username', user.username), status, cell('enabled', user.enabled ? 'yes' : 'no'),
      cell('attributes', attributes), groups, cell('actions', actions));
    return row;
  }

  renderInbox(codes) {
    if (codes.length === 0) {
      const empty = element('td', { colSpan: 5, className: 'empty',
        textContent: 'No codes yet: a sign-up, a forgotten password or a new email makes one.' });
      this.inbox.replaceChildren(element('tr', {}, empty));
      return;
    }
    this.inbox.replaceChildren(...codes.map((sent) => {
      const code = element('code', { textContent: sent.code });
      code.dataset.testid = 'inbox-code';
      const row = element('tr', {},
        element('td', { textContent: new Date(sent.time).toLocaleTimeString() }),
        element('td', { textContent: sent.username }),
        element('td', { textContent: sent.destination ?? '(printed only)' }),
        element('td', { textContent: sent.purpose.toLowerCase().replaceAll('_', ' ') }),
        element('td', {}, code));
      row.dataset.testid = 'inbox-row';
      row.dataset.username = sent.username;
      return row;
    }));
  }

  /** Runs one of the admin API's changes, then reads the users again. */
  async change(action, body) {
    try {
      await api(`users/${action}`, body);
    } catch (error) {
      this.outcome(error.message, true);
      return false;
    }
    this.outcome(`${action}: done for ${body.username}`, false);
    await this.load();
    this.changed();
    return true;
  }

  async create(form) {
    const body = {
      username: form.elements.username.value.trim(),
      password: form.elements.password.value,
      email: form.elements.email.value.trim(),
      temporary: form.elements.temporary.checked,
    };
    try {
      await api('users', body);
    } catch (error) {
      this.outcome(error.message, true);
      return;
    }
    form.reset();
    this.outcome(`created ${body.username}`, false);
    await this.load();
    this.changed();
  }

  async remove(username) {
    if (!window.confirm(`Delete the user ${username}? Its tokens are revoked.`)) return;
    await this.change('delete', { username });
  }

  askPassword(username) {
    this.passwordUser.textContent = username;
    this.passwordForm.hidden = false;
    this.passwordForm.elements.password.value = '';
    this.passwordForm.elements.password.focus();
  }

  async setPassword() {
    const form = this.passwordForm;
    const done = await this.change('password', {
      username: this.passwordUser.textContent,
      password: form.elements.password.value,
      temporary: form.elements.temporary.checked,
    });
    if (done) form.hidden = true;
  }

  /** Says how a change went: a refusal stays on show until the next change. */
  outcome(text, isError) {
    this.refused = isError;
    this.report(text, isError);
  }

  report(text, isError) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }
}
