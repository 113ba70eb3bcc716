// Settings remembered between visits (localStorage): every field marked
// data-setting keeps its last value; the board's flip and the arrow too.

const KEY = 'yote-settings';

function saved() {
  try {
    return JSON.parse(localStorage.getItem(KEY)) ?? {};
  } catch (_) {
    return {};
  }
}

export function remember(name, value) {
  const all = saved();
  all[name] = value;
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch (_) { /* private mode: not kept */ }
}

export function recall(name, fallback) {
  return saved()[name] ?? fallback;
}

// Fields are filled from the saved values once their options exist; a
// value no option has (an engine no longer on the command line) is left.
export function loadSettings() {
  const all = saved();
  for (const el of document.querySelectorAll('[data-setting]')) {
    const value = all[el.id];
    if (value !== undefined && (el.tagName !== 'SELECT' || [...el.options].some((o) => o.value === value))) el.value = value;
    el.addEventListener('change', () => remember(el.id, el.value));
  }
}
