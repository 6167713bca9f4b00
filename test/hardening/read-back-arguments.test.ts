/**
 * The read-back tool reads its arguments and its caller's context once, as plain data: a throwing getter, a revoked
 * proxy or a proxy whose traps throw, in the arguments or in the context, ends as a typed `invalid_arguments`
 * failure and never rejects. Beside them, the same arguments written plainly read their page.
 */
import { describe, expect, it } from "vitest";
import { MemorySpillStore, type ReadBackContext, readBack } from "../../runtime/index.js";

async function spilled() {
  const store = new MemorySpillStore();
  const json = JSON.stringify({ items: [1, 2, 3] });
  const { handle } = await store.put({ tool: "t", json, sha256: "a".repeat(64) });
  return { reader: readBack(store), handle };
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe("hostile read-back arguments", () => {
  it("a getter, a revoked proxy or a throwing trap in the arguments is invalid_arguments, never a rejection", async () => {
    const { reader, handle } = await spilled();
    const getter = Object.defineProperty({ handle }, "pointer", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    const traps = new Proxy(
      { handle },
      {
        ownKeys() {
          throw new Error("boom");
        },
      },
    );
    const throwingHandle = new Proxy(
      { handle },
      {
        getOwnPropertyDescriptor() {
          throw new Error("boom");
        },
      },
    );
    for (const args of [getter, revoked(), traps, throwingHandle]) {
      const outcome = await reader.handle(args);
      expect(outcome.ok || outcome.error.code).toBe("invalid_arguments");
      expect(outcome.content).toContain('error="invalid_arguments"');
    }
  });

  it("a getter or a revoked proxy as the caller's context is refused the same way", async () => {
    const { reader, handle } = await spilled();
    const tenant = Object.defineProperty({}, "tenant", {
      get() {
        throw new Error("boom");
      },
    }) as ReadBackContext;
    for (const ctx of [tenant, revoked() as ReadBackContext]) {
      const outcome = await reader.handle({ handle, pointer: "/items" }, ctx);
      expect(outcome.ok || outcome.error.code).toBe("invalid_arguments");
    }
  });

  it("the positive control: the same arguments written plainly, or as a class instance's own fields, read their page", async () => {
    const { reader, handle } = await spilled();
    class Args {
      handle = handle;
      pointer = "/items";
    }
    for (const args of [{ handle, pointer: "/items" }, new Args()]) {
      const outcome = await reader.handle(args);
      expect(outcome.ok && outcome.page.items).toEqual([1, 2, 3]);
    }
  });
});
