/**
 * The configuration editor, loaded only by the Configuration screen:
 * CodeMirror 6 with the JSON language and a linter that checks the text
 * against the contract's ClubConfig schema as the member types, each problem
 * marked at its path. Also the line diff of the draft against the published
 * version.
 */
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { syntaxTree } from "@codemirror/language";
import { linter, lintGutter, type Diagnostic } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, highlightActiveLine } from "@codemirror/view";
import type { SyntaxNode } from "@lezer/common";
import validate from "virtual:club-config-validator";

export interface Problem {
  /** The field's path as the server names it, e.g. `rules[3].when` (empty for the whole document). */
  path: string;
  message: string;
  from: number;
}

export interface Editor {
  text(): string;
  setText(text: string): void;
  /** Moves the cursor to a problem and focuses the editor. */
  reveal(from: number): void;
  destroy(): void;
}

const VALUE_NODES = new Set(["Object", "Array", "String", "Number", "True", "False", "Null"]);

/** The syntax node of the value at `segments` (a JSON Pointer's parts), or the deepest one found. */
function nodeAt(view: EditorState, segments: string[]): SyntaxNode | null {
  let node: SyntaxNode | null = syntaxTree(view).topNode.firstChild;
  for (const segment of segments) {
    if (!node) return null;
    let next: SyntaxNode | null = null;
    if (node.name === "Object") {
      for (let property = node.firstChild; property; property = property.nextSibling) {
        if (property.name !== "Property") continue;
        const name = property.firstChild;
        if (name && name.name === "PropertyName" && JSON.parse(view.sliceDoc(name.from, name.to)) === segment) {
          next = property.lastChild && VALUE_NODES.has(property.lastChild.name) ? property.lastChild : name;
          break;
        }
      }
    } else if (node.name === "Array") {
      let index = 0;
      for (let item = node.firstChild; item; item = item.nextSibling) {
        if (!VALUE_NODES.has(item.name)) continue;
        if (String(index++) === segment) {
          next = item;
          break;
        }
      }
    }
    if (!next) return node;
    node = next;
  }
  return node;
}

function pathOf(segments: string[]): string {
  return segments.map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : `${index ? "." : ""}${segment}`)).join("");
}

/** Schema problems of the document, each at its path. */
export function schemaProblems(state: EditorState): Problem[] {
  let data: unknown;
  try {
    data = JSON.parse(state.doc.toString());
  } catch {
    return [];
  }
  if (validate(data)) return [];
  const seen = new Set<string>();
  const problems: Problem[] = [];
  for (const error of validate.errors ?? []) {
    const segments = error.instancePath
      .split("/")
      .slice(1)
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
    const extra = (error.params.missingProperty ?? error.params.unevaluatedProperty ?? error.params.additionalProperty) as string | undefined;
    const path = pathOf(extra !== undefined ? [...segments, extra] : segments);
    const message = `${path || "(root)"}: ${error.message ?? error.keyword}${error.keyword === "enum" ? ` (${(error.params.allowedValues as unknown[]).join(", ")})` : ""}`;
    if (seen.has(message)) continue;
    seen.add(message);
    const node = nodeAt(state, error.keyword === "unevaluatedProperties" && extra ? [...segments, extra] : segments);
    problems.push({ path, message, from: node?.from ?? 0 });
  }
  return problems;
}

export function createEditor(
  parent: HTMLElement,
  text: string,
  options: { label: string; readOnly?: boolean; onChange: (text: string) => void; onProblems: (problems: Problem[]) => void },
): Editor {
  const syntax = jsonParseLinter();
  const schemaLinter = linter(
    (view) => {
      const parseErrors = syntax(view);
      const problems: Problem[] = parseErrors.length ? parseErrors.map((d) => ({ path: "", message: d.message, from: d.from })) : schemaProblems(view.state);
      options.onProblems(problems);
      if (parseErrors.length) return parseErrors;
      return problems.map((problem): Diagnostic => {
        const node = syntaxTree(view.state).resolveInner(problem.from, 1);
        const to = Math.max(problem.from + 1, Math.min(node.to, view.state.doc.length));
        return { from: problem.from, to: Math.min(to, view.state.doc.length), severity: "error", message: problem.message, source: "ClubConfig" };
      });
    },
    { delay: 300 },
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        history(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        json(),
        lintGutter(),
        schemaLinter,
        EditorView.contentAttributes.of({ "aria-label": options.label }),
        EditorState.readOnly.of(options.readOnly === true),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
        }),
        EditorView.theme({
          "&": { height: "480px", border: "1px solid #94a3b8" },
          ".cm-scroller": { overflow: "auto", fontFamily: "ui-monospace, monospace" },
        }),
      ],
    }),
  });
  // The scrolling box is reachable by keyboard too (it scrolls without the cursor in it).
  view.scrollDOM.tabIndex = 0;
  return {
    text: () => view.state.doc.toString(),
    setText: (next) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } }),
    reveal: (from) => {
      view.dispatch({ selection: { anchor: Math.min(from, view.state.doc.length) }, scrollIntoView: true });
      view.focus();
    },
    destroy: () => view.destroy(),
  };
}

export type DiffLine = { kind: " " | "+" | "-"; text: string };

/**
 * A line diff (longest common subsequence), with unchanged runs longer than `context` lines folded.
 * @public read from the lazily imported module (screens/config.tsx), which knip does not follow
 */
export function diffLines(before: string, after: string, context = 3): (DiffLine | { kind: "…"; text: string })[] {
  const a = before.split("\n");
  const b = after.split("\n");
  // Common prefix and suffix first: config edits are local, which keeps the table small.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const lines: DiffLine[] = a.slice(0, start).map((text) => ({ kind: " ", text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && midA[i] === midB[j]) {
      lines.push({ kind: " ", text: midA[i] });
      i++;
      j++;
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) lines.push({ kind: "-", text: midA[i++] });
    else lines.push({ kind: "+", text: midB[j++] });
  }
  for (const text of a.slice(endA)) lines.push({ kind: " ", text });
  // Fold unchanged lines far from any change.
  const near = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind !== " ") for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) near[k] = true;
  });
  const out: (DiffLine | { kind: "…"; text: string })[] = [];
  let folded = 0;
  lines.forEach((line, index) => {
    if (near[index]) {
      if (folded) out.push({ kind: "…", text: `${folded}` });
      folded = 0;
      out.push(line);
    } else folded++;
  });
  if (folded && out.length) out.push({ kind: "…", text: `${folded}` });
  return out;
}
