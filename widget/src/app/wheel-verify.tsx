import { verifyWheelSpin } from "@clube/browser";
import { useState } from "preact/hooks";
import { useWidget } from "./context";
import { errorText } from "./load";

type Status = "idle" | "working" | "verified" | "mismatch" | "sealed" | "error";

/**
 * "Verify this spin" (provably fair wheel): reads the participant's own spin
 * audit (`GET /v1/me/wheel/spins`) and recomputes the spin in the browser with
 * `verifyWheelSpin` from @clube/browser — nothing the server says about the
 * outcome is trusted, only the revealed seed, its commitment and the weights.
 * While the server seed is still in use it is secret, so the spin cannot be
 * checked yet; the participant may reveal it by rotating the seed
 * (`POST /v1/me/wheel/seed`), which commits to a new one for later spins.
 */
export function VerifySpin(props: { spinId: string; onRotated: () => void }) {
  const { api, t } = useWidget();
  const [status, setStatus] = useState<Status>("idle");
  const [error, setError] = useState("");

  const verify = async () => {
    setStatus("working");
    try {
      const audit = await api.me.wheelSpins({ limit: 100 });
      const spin = audit.data.find((entry) => entry.spin_id === props.spinId);
      if (!spin) throw new Error(t.failed);
      if (spin.server_seed === null) return setStatus("sealed");
      const check = await verifyWheelSpin({
        serverSeed: spin.server_seed,
        serverSeedHash: spin.server_seed_hash,
        clientSeed: spin.client_seed,
        nonce: spin.nonce,
        weights: spin.weights,
        index: spin.index,
      });
      setStatus(check.valid ? "verified" : "mismatch");
    } catch (err) {
      setError(errorText(err));
      setStatus("error");
    }
  };

  const reveal = async () => {
    setStatus("working");
    try {
      await api.me.rotateWheelSeed({});
      props.onRotated();
      await verify();
    } catch (err) {
      setError(errorText(err));
      setStatus("error");
    }
  };

  const text =
    status === "verified" ? t.spinVerified : status === "mismatch" ? t.spinMismatch : status === "sealed" ? t.spinSealed : status === "error" ? error : "";
  return (
    <div class="stack center" data-testid="verify-spin" data-status={status}>
      {status === "sealed" ? (
        <button class="btn ghost" onClick={() => void reveal()}>
          {t.revealSeed}
        </button>
      ) : status === "verified" || status === "mismatch" ? null : (
        <button class="btn ghost" disabled={status === "working"} onClick={() => void verify()}>
          {t.verifySpin}
        </button>
      )}
      <p class={status === "mismatch" || status === "error" ? "notice error" : "notice"} role="status" aria-live="polite">
        {text}
      </p>
    </div>
  );
}
