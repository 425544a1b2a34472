/**
 * Generic checks of a node's edit dialog, driven by the node's own editor definition: every property in
 * `defaults` and `credentials` has a field, every label and option is translated, and a bad value typed into a
 * field turns it red (Node-RED marks invalid fields with `input-error`).
 */
import type { Page } from 'playwright-core';
import type { EditorWindow, PageElement } from './page-types';

export type FieldKind = 'text' | 'password' | 'select' | 'checkbox' | 'typed' | 'other';

export interface DialogField {
  key: string;
  /** The element's id; for a property edited through a widget, the widget's (`node-input-events-list`). */
  id: string;
  kind: FieldKind;
  /** Set when the property refers to a configuration node (its select offers "Add new …"). */
  configType: string | null;
  visible: boolean;
  red: boolean;
}

export interface DialogReport {
  fields: DialogField[];
  /** Properties of the definition with no field in the dialog. */
  missing: string[];
  /** Labels, options or placeholders that show a message key instead of text. */
  untranslated: string[];
}

/** `node-input` for a flow node's dialog, `node-config-input` for a configuration node's. */
export type FieldPrefix = 'node-input' | 'node-config-input';

export async function inspectDialog(page: Page, type: string, prefix: FieldPrefix): Promise<DialogReport> {
  return page.evaluate(
    ({ t, p }) => {
      const w = globalThis as unknown as EditorWindow;
      const def = w.RED.nodes.getType(t);
      if (!def) return { fields: [], missing: [`(no editor definition for ${t})`], untranslated: [] };
      const keys = [...Object.keys(def.defaults), ...Object.keys(def.credentials ?? {})];
      const fields: Array<{ key: string; id: string; kind: string; configType: string | null; visible: boolean; red: boolean }> = [];
      const missing: string[] = [];
      for (const key of keys) {
        const el = w.document.getElementById(`${p}-${key}`) ?? w.document.querySelector(`[id^="${p}-${key}-"]`);
        if (!el) {
          missing.push(key);
          continue;
        }
        const input = el as PageElement & { type?: string };
        let kind = 'other';
        if (el.tagName === 'SELECT') kind = 'select';
        else if (el.tagName === 'INPUT' && input.type === 'checkbox') kind = 'checkbox';
        else if (el.tagName === 'INPUT' && el.nextElementSibling?.classList.contains('red-ui-typedInput-container')) kind = 'typed';
        else if (el.tagName === 'INPUT' && input.type === 'password') kind = 'password';
        else if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') kind = 'text';
        const refType = def.defaults[key]?.type;
        const configType = refType && w.RED.nodes.getType(refType)?.category === 'config' ? refType : null;
        fields.push({ key, id: el.id, kind, configType, visible: el.getClientRects().length > 0, red: el.classList.contains('input-error') });
      }

      const form = w.document.getElementById(p === 'node-config-input' ? 'node-config-dialog-edit-form' : 'dialog-form');
      const untranslated: string[] = [];
      if (form) {
        for (const el of Array.from(form.querySelectorAll('[data-i18n]'))) {
          for (const spec of (el.getAttribute('data-i18n') ?? '').split(';')) {
            const m = /^(?:\[([^\]]+)\])?(.+)$/.exec(spec.trim());
            if (!m) continue;
            const key = m[2];
            const shown = (m[1] ? el.getAttribute(m[1]) : el.textContent) ?? '';
            const bare = key.replace(/^[^:]*:/, '');
            if (shown.trim() === '' || shown === key || shown === bare) untranslated.push(`${key} (${m[1] ?? 'text'})`);
          }
        }
        const texts = [form.innerText, ...Array.from(form.querySelectorAll('option')).map((o) => o.textContent ?? '')];
        for (const text of texts) {
          for (const token of text.split(/\s+/)) {
            if (/^[a-z][\w-]*(\.[A-Za-z][\w-]*){2,}$/.test(token)) untranslated.push(`"${token}" shown as text`);
          }
        }
      }
      return { fields, missing, untranslated: Array.from(new Set(untranslated)) };
    },
    { t: type, p: prefix },
  ) as Promise<DialogReport>;
}

async function isRed(page: Page, id: string): Promise<boolean> {
  return page.locator(`[id="${id}"]`).evaluate((el) => (el as unknown as PageElement).classList.contains('input-error'));
}

/** Typed values that fail the common validators: empty (required), words where a number or URL is due, a negative number. */
const BAD_TEXT = ['', 'not a valid value', '-1', 'x'];

export interface BadValue {
  key: string;
  id: string;
  /** What was typed or chosen. */
  value: string;
}

/**
 * Types bad values into the dialog's fields (after ticking unticked checkboxes, which may reveal conditional rows)
 * until one turns red, and leaves that field red for a screenshot. Returns what turned red and a function that
 * puts every field back as it was and checks that the red is gone; null when no field can hold a bad value.
 */
export async function provokeRedField(page: Page, type: string, prefix: FieldPrefix): Promise<{ bad: BadValue; restore: () => Promise<void> } | null> {
  const ticked: string[] = [];
  for (const field of (await inspectDialog(page, type, prefix)).fields) {
    if (field.kind === 'checkbox' && field.visible && !(await page.locator(`[id="${field.id}"]`).isChecked())) {
      await page.locator(`[id="${field.id}"]`).check();
      ticked.push(field.id);
    }
  }
  const untick = async (): Promise<void> => {
    for (const id of ticked) await page.locator(`[id="${id}"]`).uncheck();
  };
  const { fields } = await inspectDialog(page, type, prefix);

  for (const field of fields) {
    if (!field.visible || field.red || field.key === 'name') continue;
    const input = page.locator(`[id="${field.id}"]`);
    if (field.kind === 'text' || field.kind === 'password') {
      const original = await input.inputValue();
      for (const value of BAD_TEXT) {
        if (value === original) continue;
        await input.fill(value);
        await input.press('End'); // the editor validates on keyup, change and paste
        if (await isRed(page, field.id)) {
          return {
            bad: { key: field.key, id: field.id, value },
            restore: async () => {
              await input.fill(original);
              await input.press('End');
              if (await isRed(page, field.id)) throw new Error(`${field.key} stays red after restoring ${JSON.stringify(original)}`);
              await untick();
            },
          };
        }
      }
      await input.fill(original);
      await input.press('End');
    } else if (field.kind === 'select' && field.configType) {
      const original = await input.inputValue();
      await input.selectOption('_ADD_');
      if (await isRed(page, field.id)) {
        return {
          bad: { key: field.key, id: field.id, value: `_ADD_ (no ${field.configType} chosen)` },
          restore: async () => {
            await input.selectOption(original);
            if (await isRed(page, field.id)) throw new Error(`${field.key} stays red after choosing ${original} again`);
            await untick();
          },
        };
      }
      await input.selectOption(original);
    }
  }
  await untick();
  return null;
}
