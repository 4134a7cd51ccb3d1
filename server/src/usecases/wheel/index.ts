// The wheel domain's public face: what other folders may use of it.
export { listFairSpins, rotateWheelSeed } from "./fair-seeds.js";
export { getWheelState, spinWheel } from "./wheel.js";
