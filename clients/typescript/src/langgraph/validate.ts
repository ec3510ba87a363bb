/** LangGraph.js's namespace checks (BaseStore's validateNamespace), but for one: a label may
 * hold ':'. LangGraph.js 1.2 refuses ':' everywhere because its InMemoryStore joins labels
 * with it; here `product:<id>`, `team:<id>` and `agent:<id>` labels name scope-tree nodes, as
 * they do in the Python store (whose LangGraph refuses no ':'). */

import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";

export function validateNamespace(
  namespace: readonly unknown[],
  options: { allowEmpty?: boolean; allowReservedRoot?: boolean } = {},
): void {
  if (namespace.length === 0) {
    if (options.allowEmpty) return;
    throw new InvalidNamespaceError("Namespace cannot be empty.");
  }
  for (const label of namespace) {
    if (typeof label !== "string") {
      throw new InvalidNamespaceError(
        `Invalid namespace label '${String(label)}' found in ${namespace.join(",")}. ` +
          `Namespace labels must be strings, but got ${typeof label}.`,
      );
    }
    if (label.includes(".")) {
      throw new InvalidNamespaceError(
        `Invalid namespace label '${label}' found in ${namespace.join(",")}. ` +
          "Namespace labels cannot contain periods ('.').",
      );
    }
    if (label.includes("\0")) throw new InvalidNamespaceError("Namespace labels cannot contain NUL bytes.");
    if (label === "") throw new InvalidNamespaceError(`Namespace labels cannot be empty strings. Got ${namespace.join(",")}`);
  }
  if (namespace[0] === "langgraph" && !options.allowReservedRoot) {
    throw new InvalidNamespaceError(`Root label for namespace cannot be "langgraph". Got: ${namespace.join(",")}`);
  }
}
