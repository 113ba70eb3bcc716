// A question before something that cannot be undone (a game thrown away,
// a resignation): resolves true for Yes, false for Cancel or Escape.

export function ask(text, yes = 'Yes') {
  const box = document.getElementById('ask');
  box.querySelector('[data-role="ask-text"]').textContent = text;
  const ok = box.querySelector('[data-answer="yes"]');
  ok.textContent = yes;
  return new Promise((resolve) => {
    const done = (answer) => {
      box.onclose = null;
      if (box.open) box.close();
      resolve(answer);
    };
    ok.onclick = () => done(true);
    box.querySelector('[data-answer="no"]').onclick = () => done(false);
    box.onclose = () => done(false);
    box.showModal();
  });
}
