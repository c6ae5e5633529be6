// The check page's input: the form (pool, position, secret), read and checked before anything
// is asked of the server; each problem is said next to its field (problems.js).

import { byTestId } from "./dom.js";
import { showErrors, clearErrors } from "./problems.js";

const q = byTestId;

/** Put ``values`` into the form (null leaves a field empty). */
export function fillCheckForm({ pool, position, secret }) {
  q("check-pool").value = pool === null || pool === undefined ? "" : String(pool);
  q("check-position").value = position === null || position === undefined ? "" : String(position);
  q("check-secret").value = secret || "";
}

function read() {
  const pool = q("check-pool").value.trim();
  const position = q("check-position").value.trim().replace(/[,\s]/g, "");
  const secret = q("check-secret").value.trim();
  const fields = {};
  if (!/^[1-9]\d{0,9}$/.test(pool)) fields.pool = "Enter the pool's number, like 1.";
  if (!/^\d{1,13}$/.test(position)) fields.position = "Enter the play's position in the pool, like 0 or 1234.";
  if (secret && !/^[0-9a-fA-F]{64}$/.test(secret)) fields.secret = "A pool's secret is 64 characters, the digits 0 to 9 and letters a to f.";
  return { fields, values: { pool: Number(pool), position: Number(position), secret } };
}

/** ``onCheck(values)`` runs a check (through ``guard``); ``onDone()`` leaves the page. */
export function initCheckInput({ onCheck, onDone, guard }) {
  const form = q("check-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    clearErrors(form);
    const { fields, values } = read();
    if (Object.keys(fields).length) {
      showErrors(form, { fields, form: null });
      return;
    }
    guard(() => onCheck(values));
  });
  q("check-done").addEventListener("click", () => onDone());
}
