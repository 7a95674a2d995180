/** The amount an `amount` verb may take: `+$2`, `+$0.50`. */
export const AMOUNT = /^\+\$(\d{1,6}(?:\.\d{1,2})?)$/;
