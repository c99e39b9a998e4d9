/** haversine: great-circle distance and bearing between two coordinates. */
import { Float } from '../../lib/value.js';
import { type FnDef, defineFunction } from '../function.js';
import * as K from '../kind.js';
import { num } from './args.js';

/** The functions of this file, for the stdlib list. */
export const geoFunctions: readonly FnDef[] = [
  defineFunction({
    name: 'haversine',
    description: 'Great-circle distance and bearing between two coordinates.',
    params: [
      { name: 'latitude1', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'longitude1', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'latitude2', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'longitude2', kind: K.INTEGER | K.FLOAT, required: true },
      { name: 'measurement_unit', kind: K.BYTES },
    ],
    returns: K.objectKind(new Map([['distance', K.K_FLOAT], ['bearing', K.K_FLOAT]])),
    call: ([la1, lo1, la2, lo2, unit]) => {
      const r = (d: number): number => (d * Math.PI) / 180;
      const [p1, p2] = [r(num(la1)), r(num(la2))];
      const dl = r(num(lo2) - num(lo1));
      const a = Math.sin((p2 - p1) / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) ** 2;
      const km = 6371.0088 * 2 * Math.asin(Math.sqrt(a));
      const y = Math.sin(dl) * Math.cos(p2);
      const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
      const bearing = (((Math.atan2(y, x) * 180) / Math.PI + 360) % 360);
      const round = (n: number): number => Math.round(n * 1e7) / 1e7;
      return { distance: new Float(round(unit === 'miles' ? km * 0.621371 : km)), bearing: new Float(round(bearing)) };
    },
  }),
];
