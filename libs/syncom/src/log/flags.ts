/** Flag of an advance whose vector was granted here (BOOT-11): replay grants it again. */
export const FLAG_GRANTED = 8;
