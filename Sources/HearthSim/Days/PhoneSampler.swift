import HearthGeo

/// Turns the true track into the fixes one phone records and uploads.
struct PhoneSampler {
  let device: UInt32
  let options: DayOptions
  var noise: Gaussian
  var gaps: [GapLabel] = []
  /// The current indoor stay's typical accuracy and error offset (metres east, north).
  private var stay = (accuracy: 30.0, east: 0.0, north: 0.0)
  var outliers: [OutlierLabel] = []

  init(device: UInt32, seed: UInt64, options: DayOptions) {
    self.device = device
    self.options = options
    noise = Gaussian(seed: seed)
  }

  private func milliseconds(_ second: Int) -> Int64 { options.startEpochMilliseconds + Int64(second) * 1000 }

  /// The phone's fixes in time order. `tunnels` are the seconds without any
  /// fix (shared by every phone in the car).
  mutating func sample(_ truth: TruthTrack, drives: [Range<Int>], tunnels: [Range<Int>]) -> FixColumns {
    var live: [Range<Int>] = []
    for drive in drives where drive.count > 240 && noise.chance(options.liveProbabilityPerDrive) {
      let length = min(drive.count - 60, Int(noise.uniform(180, 600)))
      let start = drive.lowerBound + Int(noise.uniform(0, Double(drive.count - length)))
      live.append(start..<start + length)
    }
    for tunnel in tunnels {
      gaps.append(
        GapLabel(
          device: device, startMilliseconds: milliseconds(tunnel.lowerBound),
          endMilliseconds: milliseconds(tunnel.upperBound)))
    }
    var fixes = FixColumns()
    var lastSecond = Int.min / 2
    var last = (0.0, 0.0)
    var arrivedAt = 0
    var fixSinceArrival = true
    for t in 0..<truth.count {
      let mode = truth.mode[t]
      if mode == .parked && (t == 0 || truth.mode[t - 1] != .parked) {
        arrivedAt = t
        fixSinceArrival = false
        let accuracy = noise.uniform(15, 65)
        stay = (accuracy, accuracy / 1.5 * noise.next(), accuracy / 1.5 * noise.next())
      }
      if tunnels.contains(where: { $0.contains(t) }) { continue }
      let here = (truth.eastMeters[t], truth.northMeters[t])
      let moved = DayGenerator.planarDistance(here, last)
      let elapsed = t - lastSecond
      var source: FixSource?
      switch mode {
      case .parked:
        if !fixSinceArrival && t - arrivedAt >= 30 {
          source = .park
        } else if elapsed >= 900 {
          source = .heartbeat
        }
      case .driving:
        if live.contains(where: { $0.contains(t) }) || (elapsed >= 10 && moved >= 50)
          || (elapsed >= 30 && moved >= 5)
        {
          source = .ordinary
        }
      case .walking:
        if live.contains(where: { $0.contains(t) }) || moved >= 60 || (elapsed >= 30 && moved >= 5) {
          source = .ordinary
        }
      }
      guard let source else { continue }
      fixes.append(fix(truth, t, source))
      lastSecond = t
      last = here
      fixSinceArrival = true
    }
    return fixes
  }

  /// One fix of the truth at second `t`, with the phone's errors.
  private mutating func fix(_ truth: TruthTrack, _ t: Int, _ source: FixSource) -> Fix {
    let mode = truth.mode[t]
    let indoors = mode == .parked && truth.placeID[t] >= 0
    let network = noise.chance(options.networkFixProbability)
    let outlier = !network && noise.chance(options.outlierProbability)
    let accuracy: Double
    if network {
      // Wi-Fi positioning (12–60 m) or a cell estimate (100 m – 3.1 km,
      // log-uniform): the mix seen in mems-nav's LocationNetwork.csv.
      accuracy = noise.chance(0.6) ? noise.uniform(12, 60) : 100 * SimMath.exp(noise.uniform(0, 3.434))
    } else if outlier {
      accuracy = noise.uniform(5, 12)
    } else if indoors {
      accuracy =
        options.correlatedIndoorErrors ? stay.accuracy * noise.uniform(0.8, 1.2) : noise.uniform(15, 65)
    } else if mode == .parked {
      accuracy = noise.uniform(5, 20)
    } else {
      accuracy = noise.uniform(4, 12)
    }
    // Accuracy is a 68 % radius; each axis errs with σ = accuracy / 1.5.
    // Indoors the phone sees the same access points all stay long: the error
    // is one offset drawn when the stay began plus a 5 m jitter.
    var east: Double
    var north: Double
    if indoors && !network && !outlier && options.correlatedIndoorErrors {
      east = truth.eastMeters[t] + stay.east + 5 * noise.next()
      north = truth.northMeters[t] + stay.north + 5 * noise.next()
    } else {
      east = truth.eastMeters[t] + accuracy / 1.5 * noise.next()
      north = truth.northMeters[t] + accuracy / 1.5 * noise.next()
    }
    let time = milliseconds(t) + Int64(noise.uniform(0, 999))
    if outlier {
      let jump = noise.uniform(1000, 5000)
      let bearing = noise.uniform(0, 2 * SimMath.pi)
      east += jump * SimMath.sin(bearing)
      north += jump * SimMath.cos(bearing)
      outliers.append(OutlierLabel(device: device, timeMilliseconds: time, jumpMeters: jump))
    }
    let v = truth.speedMetersPerSecond[t]
    var heading: Double?
    if !network && v > 0.5 {
      var h = truth.headingDegrees[t] + 3 * noise.next()
      h -= 360 * (h / 360).rounded(.down)
      heading = h
    }
    let activity: Activity =
      network ? .unknown : (mode == .parked ? .still : (mode == .walking ? .walking : .automotive))
    let (battery, charging) = Self.battery(atSecond: t)
    let at = truth.frame.coordinate(east: east, north: north)
    return Fix(
      timeMilliseconds: time, latitudeDegrees: at.latitudeDegrees, longitudeDegrees: at.longitudeDegrees,
      horizontalAccuracyMeters: accuracy,
      speedMetersPerSecond: network
        ? nil : (mode == .parked ? abs(0.05 * noise.next()) : max(0, v + 0.3 * noise.next())),
      headingDegrees: heading, altitudeMeters: network ? nil : 520 + 2 * noise.next(), activity: activity,
      source: source,
      batteryLevel: battery, charging: charging, device: DeviceID(device), user: UserID(options.user))
  }

  /// Charged overnight to 7:00, drains 4.5 %/h, back on charge from 21:00.
  static func battery(atSecond t: Int) -> (Double, ChargingState) {
    let h = Double(t) / 3600
    let level: Double
    let state: ChargingState
    if h < 7 {
      (level, state) = (min(1, 0.55 + 0.08 * h), .charging)
    } else if h < 21 {
      (level, state) = (1 - 0.045 * (h - 7), .notCharging)
    } else {
      (level, state) = (min(1, 0.37 + 0.2 * (h - 21)), .charging)
    }
    return ((level * 100).rounded() / 100, state)
  }

  /// A tablet at home: a heartbeat every quarter hour all day, indoor accuracy.
  mutating func heartbeats(at home: Place, frame: LocalFrame) -> FixColumns {
    var fixes = FixColumns()
    let centre = (
      (home.center.longitudeDegrees - frame.origin.longitudeDegrees) * frame.metersPerDegree
        * frame.cosLatitude,
      (home.center.latitudeDegrees - frame.origin.latitudeDegrees) * frame.metersPerDegree
    )
    var t = Int(noise.uniform(0, 900))
    while t < 86_400 {
      let accuracy = noise.uniform(15, 65)
      let at = frame.coordinate(
        east: centre.0 + accuracy / 1.5 * noise.next(), north: centre.1 + accuracy / 1.5 * noise.next())
      fixes.append(
        Fix(
          timeMilliseconds: milliseconds(t), latitudeDegrees: at.latitudeDegrees,
          longitudeDegrees: at.longitudeDegrees,
          horizontalAccuracyMeters: accuracy, speedMetersPerSecond: 0, activity: .still, source: .heartbeat,
          batteryLevel: 1, charging: .charging, device: DeviceID(device), user: UserID(options.user)))
      t += 900 + Int(noise.uniform(0, 30))
    }
    return fixes
  }

  /// Uploads: moving fixes go in batches every 1–5 min, parked ones
  /// (arrival, heartbeat) on their own at once; some arrive 5–30 min late
  /// and some are sent twice.
  mutating func upload(_ fixes: FixColumns) -> [Upload] {
    var uploads: [Upload] = []
    var batch = FixColumns()
    var due = Int64.min
    func send(_ fixes: FixColumns, at time: Int64, _ noise: inout Gaussian) {
      var received = time
      if noise.chance(options.lateUploadProbability) { received += Int64(noise.uniform(300, 1800) * 1000) }
      uploads.append(
        Upload(receivedMilliseconds: received, device: DeviceID(device), fixes: fixes, isRepeat: false))
      if noise.chance(options.repeatedUploadProbability) {
        uploads.append(
          Upload(
            receivedMilliseconds: received + Int64(noise.uniform(30, 600) * 1000), device: DeviceID(device),
            fixes: fixes,
            isRepeat: true))
      }
    }
    for i in 0..<fixes.count {
      let time = fixes.timeMilliseconds[i]
      if !batch.isEmpty && time > due {
        send(batch, at: due, &noise)
        batch = FixColumns()
      }
      if fixes.source[i] != .ordinary {
        if !batch.isEmpty {
          send(batch, at: time, &noise)
          batch = FixColumns()
        }
        send(FixColumns([fixes[i]]), at: time + Int64(noise.uniform(1, 10) * 1000), &noise)
        continue
      }
      if batch.isEmpty { due = time + Int64(noise.uniform(60, 300) * 1000) }
      batch.append(from: fixes, at: i)
    }
    if !batch.isEmpty { send(batch, at: due, &noise) }
    return uploads
  }
}
