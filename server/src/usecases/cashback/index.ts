// The cashback domain's public face: what other folders may use of it.
export { getCashbackProgram, updateCashbackProgram } from "./cashback.js";
export { claimCashback, creditDueCashbackForAllClubs, getCashbackState } from "./claims.js";
