import type { MeConfig } from "./api";

/** Numbers and amounts, with Intl in the widget's locale. Amounts are in main units, as the API serves them (10.5 is 10,50). */
export function formatters(locale: string, config: MeConfig | null) {
  const number = new Intl.NumberFormat(locale);
  const currencyOf = (code: string) => config?.currencies.find((currency) => currency.code === code);
  return {
    number: (value: number) => number.format(value),
    amount(main: number, code: string): string {
      const currency = currencyOf(code);
      const decimals = currency?.decimals ?? 0;
      const value = new Intl.NumberFormat(locale, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(main);
      return `${value} ${currency?.name ?? code}`;
    },
    /** An integer in minor units (a field ending in `_minor`, such as a tournament pool). */
    amountMinor(minor: number, code: string): string {
      return this.amount(minor / 10 ** (currencyOf(code)?.decimals ?? 0), code);
    },
    /** Real money in main units (cashback), in the club's currency (BRL, the seed's). */
    money: (main: number, currency = "BRL") => new Intl.NumberFormat(locale, { style: "currency", currency }).format(main),
    date: (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(new Date(iso)),
  };
}

export type Formatters = ReturnType<typeof formatters>;
