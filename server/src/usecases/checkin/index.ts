// The checkin domain's public face: what other folders may use of it.
export { claimCheckin, getCheckinState } from "./checkin.js";
