#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets that read folders or binary
files (Tests/Fuzz/Corpus/<target>/seed-*): small, valid examples of each
format, with the parts of a folder joined by RS GS (0x1E 0x1D) as
FuzzTarget.split expects. Standard library only; run from anywhere:
    python3 Tests/Fuzz/make-seeds.py
"""
import os
import struct

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "Corpus")
SEP = b"\x1e\x1d"


def npy(values, dtype="<f8", shape=None):
    shape = shape or (len(values),)
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(str(n) for n in shape) + ")"
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape_text)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    code = {"<f8": "d", "<i8": "q", "|u1": "B"}[dtype]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%d%s" % (len(values), code), *values)


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def join(*parts):
    return SEP.join(p if isinstance(p, bytes) else p.encode() for p in parts)


meta_ios = "version,device name,recording epoch time,platform,standardisation\n3,iPhone,1700000000000,ios,false\n"
meta_android = "version,device name,recording epoch time,platform\n3,Pixel,1700000000000,android\n"
vec = "time,seconds_elapsed,z,y,x\n1700000000000000000,0,9.8,0.1,0\n1700000000020000000,0.02,9.7,0.2,0\n1700000000040000000,,9.8,0,0\n"
grav = "time,seconds_elapsed,z,y,x\n1700000000000000000,0,-9.80665,0,0\n1700000000100000000,0.1,-9.80665,0,0\n"
baro = "time,seconds_elapsed,relativeAltitude,pressure\n1700000000000000000,0,0.1,1013.2\n1700000000200000000,0.2,0.1,101.3\n"
loc = "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n1700000000000000000,0,5,-1,-1,10,2.0,48.0\n1700000001000000000,1,5,3,90,10,2.0,48.0\n"
act = "time,seconds_elapsed,activity\n1700000000000000000,0,automotive\n1700000005000000000,5,walking\n"
write("sensorLogger", "seed-android", join(meta_android, vec, "", "", vec.replace("9.8", "-100"), baro, loc, act))
write("sensorLogger", "seed-ios", join(meta_ios, "", vec.replace("9.8", "0.1"), grav, "", baro, loc, "", baro.replace("1013.2", "101.3"), vec.replace("9.8", "-1")))

# The wall clock steps back 3 s after the second row (an NTP correction): every
# stream stays on seconds_elapsed, and each file reports the step.
step_vec = "time,seconds_elapsed,z,y,x\n1700000000000000000,0,9.8,0.1,0\n1700000000020000000,0.02,9.7,0.2,0\n1699999997040000000,0.04,9.8,0,0\n1699999997060000000,0.06,9.8,0,0\n"
step_loc = "time,seconds_elapsed,horizontalAccuracy,speed,bearing,altitude,longitude,latitude\n1700000000000000000,0,5,10,90,10,2.0,48.0\n1699999998000000000,1,5,0,90,10,2.0,48.0\n1699999999000000000,2,5,0,90,10,2.0,48.0\n"
write("sensorLogger", "seed-clock-step", join(meta_android, step_vec, "", "", "", "", step_loc))

phy = '"Time (s)","Acceleration x (m/s^2)","Acceleration y (m/s^2)","Acceleration z (m/s^2)"\n0.0,0.1,0.2,9.8\n0.005,0.1,0.2,NaN\n'
time_csv = '"event","experiment time","system time"\n"START",0,1700000000.5\n'
device_csv = '"property","value"\n"deviceModel","X"\n"deviceBrand","Y"\n'
gps = '"Time (s)","Latitude (°)","Longitude (°)","Height (m)","Velocity (m/s)","Direction (°)","Horizontal Accuracy (m)"\n0,48,2,100,1,90,5\n1,95,2,100,1,90,5\n'
write("phyphox", "seed-folder", join(phy, time_csv, device_csv, gps))

mapping = '{"name":"m","units":"SI","files":[{"file":"a.csv","time":{"column":"t","format":"epoch-seconds"},"accelerometer":{"x":{"column":"x","unit":"g"},"y":{"column":"y","unit":"g"},"z":{"column":"z","unit":"g"}}},{"file":"b.csv","time":{"column":"t","format":"iso8601"},"fixes":{"latitude":{"column":"lat"},"longitude":{"column":"lon"}}}]}'
write("mapping", "seed-two-files", join(mapping, "t,x,y,z\n1700000000,0,0,1\n1700000000.02,0,0,1.01\n", "t,lat,lon\n2023-11-14T22:13:20Z,48,2\n2023-11-14T22:13:21+01:00,48.1,2\n"))

imu = "t,ax,ay,az,gx,gy,gz,p,h,v\n0,0,0,9.8,0,0,0,101.3,0,36\n0.02,0,0,9.8,10,0,0,101.3,0,36\n"
gpsm = "t,lat,lon,acc,v,dir,alt\n0,48,2,5,10,90,100\n1,48,2,5,10,90,100\n"
clock = "t,utc\n0,1700000000000\n1,1700000001000\n"
write("mappedFiles", "seed", join(imu, gpsm, clock))

manifest = '{"layout":"hearth-trace-folder/1","format":"test","platform":"android","timeOriginMilliseconds":1700000000000,"accelerometerContent":"includesGravity","scalarUnits":{"s":"m/s"},"activities":[[0,5],[1,2]]}'
write("traceFolder", "seed", join(
    manifest, npy([1700000000000, 1700000001000], "<i8"), npy([48.0, 48.1]), npy([2.0, 2.0]), npy([5, 0], "|u1"), npy([1, 2], "<i8"),
    npy([0.0, 0.02, 0.04]), npy([0, 0, 9.8, 0, 0, 9.8, 0, 0, 9.8], shape=(3, 3)), npy([0.0, 0.1]), npy([0.1, 0, 0, 0, 0.1, 0], shape=(2, 3)),
    npy([0.0]), npy([1013.0, 0.5], shape=(1, 2)), npy([0.0, 1.0]), npy([3.0, 4.0])))

write("comma2k19", "seed", join(
    npy([10.0, 11.0]), npy([48, 2, 10, 1700000000000, 100, 90, 48, 2, 10, 1700000001000, 100, 90], shape=(2, 6)),
    npy([10.0, 10.01]), npy([9.8, 0, 0, 9.8, 0, 0], shape=(2, 3)), npy([10.0]), npy([0.1, 0, 0], shape=(1, 3)),
    npy([10.0, 10.5]), npy([5.0, 6.0])))

write("places", "seed", b'{"type":"FeatureCollection","features":[{"type":"Feature","id":"1","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"kind":"place","radiusMeters":100,"name":"home","circle":0}}]}')
# A state saved after one person drove 12 fixes away from place 1 (the
# fuzz target's pipeline): the state's format version, every engine's keys.
write("ingestState", "seed-state", b'''{"dedupe":{"count":12,"devices":[4294967296,{"activities":[0,0,0,0,0,0,0,0,0,0,0,0],"times":[1700000000000,1700000030000,1700000060000,1700000090000,1700000120000,1700000150000,1700000180000,1700000210000,1700000240000,1700000270000,1700000300000,1700000330000]}]},"formatVersion":2,"geofences":{"droppedForRemovedPlaces":0,"people":[{"lastDeparture":{"clearSeen":true,"late":false,"milliseconds":1700000090000,"odometerMeters":166.79262035030564,"place":1},"lastFix":{"accuracy":8,"latitude":48.1425,"longitude":11.575,"speed":15,"time":1700000330000},"lastSharp":{"latitudeDegrees":48.1425,"longitudeDegrees":11.575,"milliseconds":1700000330000},"newestMilliseconds":1700000330000,"odometerMeters":611.5729412841907,"person":1,"records":[{"inside":false,"lastDepartureMilliseconds":1700000090000,"place":1,"watermarkMilliseconds":1700000120000}]}]},"people":[1,{"presence":{"row":{"activity":0,"coordinate":{"latitudeDegrees":48.1425,"longitudeDegrees":11.575},"device":0,"horizontalAccuracyMeters":8,"timeMilliseconds":1700000330000},"rules":{"staleAfterMilliseconds":900000,"staleAfterStillMilliseconds":2100000}},"sharedFrame":{"cell":87965225208328,"coordinate":{"latitudeDegrees":48.14478959793158,"longitudeDegrees":11.579154265176612},"device":0,"horizontalAccuracyMeters":750,"timeMilliseconds":1700000100000,"user":1}}],"speedAlerts":{"lastAlert":[],"previous":[1,{"accuracy":8,"latitude":48.1425,"longitude":11.575,"speed":15,"time":1700000330000}],"runs":[]},"suddenStops":{"people":[1,{"last":{"accuracy":8,"latitude":48.1425,"longitude":11.575,"speed":15,"time":1700000330000},"lastAgreed":2.1199180038747274,"lastCruiseSpeed":0,"liveSinceCruise":false,"raised":[]}],"waiting":[]},"trips":{"people":[1,{"anchor":2,"droppedLate":0,"duplicates":0,"pending":[{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.139,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000120000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1395,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000150000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.14,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000180000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1405,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000210000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.141,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000240000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1415,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000270000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.142,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000300000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1425,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000330000,"user":1}],"segment":[{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.137,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000000000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1375,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000030000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.138,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000060000,"user":1},{"activity":0,"charging":0,"device":0,"horizontalAccuracyMeters":8,"latitudeDegrees":48.1385,"longitudeDegrees":11.575,"source":0,"speedMetersPerSecond":15,"timeMilliseconds":1700000090000,"user":1}],"segmentsClosed":0,"skipped":0,"watermark":1700000090000}],"waiting":[1,1700000420000]}}''')
write("incidentState", "seed", b'{"verdictMilliseconds":1700000000000,"account":"a","phase":{"asking":{}}}')
write("impactConfiguration", "seed", b'{"joltMetersPerSecondSquared":39.2}')
# The C ABI targets (DoorTargets.swift) read 8-byte words: a fixed,
# deterministic stream of them (odd words pick realistic values, even ones
# are used as bit patterns), and the saved states above for the restores.
def words(seed, count):
    out, x = [], seed
    for _ in range(count):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(x | 1 if len(out) % 5 else x)
    return struct.pack("<%dQ" % count, *out)


for i, target in enumerate(["ingestBatch", "privacyProject", "detectorFeed", "traceColumns", "distances", "validateDedupe", "detectorTrace"]):
    write(target, "seed-words", words(i + 1, 256))
write("ingestRestore", "seed-state", open(os.path.join(ROOT, "ingestState", "seed-state"), "rb").read())
# The same state as format version 3 with a last speed alert kept with its
# receipt and phone (the object form; version 2 saved a bare time).
state = open(os.path.join(ROOT, "ingestState", "seed-state"), "rb").read()
alert = b'"lastAlert":[1,{"device":0,"milliseconds":1700000330000,"person":1,"receivedMilliseconds":1700000331000}]'
for target in ("ingestState", "ingestRestore"):
    write(target, "seed-state-alert", state.replace(b'"formatVersion":2', b'"formatVersion":3').replace(b'"lastAlert":[]', alert))
write("incidentRestore", "seed", b'{"verdictMilliseconds":1700000000000,"account":"a","phase":{"asking":{}}}')
# What this library saves now (format version 1, sending), and a version it refuses by name.
write("incidentRestore", "seed-version-1", b'{"account":"a","formatVersion":1,"phase":{"sending":{"attempts":2,"nextMilliseconds":1700000060000}},"raisedBy":"silence","verdictMilliseconds":1700000000000}')
write("incidentRestore", "seed-version-99", b'{"account":"a","formatVersion":99,"phase":{"asking":{}},"verdictMilliseconds":1700000000000}')
print("seeds written to", ROOT)
